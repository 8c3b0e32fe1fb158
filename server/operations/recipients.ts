import type { Customer } from '../../shared/index.js';

/**
 * Where a customer is reached, the same rule for bulk messages and visit reports: the first email
 * address they gave, and the first phone they enabled for texts.
 */
const EMAIL_FIELDS = ['email', 'alternateEmail', 'tertiaryEmail', 'fourthEmail'] as const;
const PHONES = [
  ['phoneNumber', 'phoneNumberEnableSMS'],
  ['alternatePhoneNumber', 'alternatePhoneNumberEnableSMS'],
  ['tertiaryPhoneNumber', 'tertiaryPhoneNumberEnableSMS'],
  ['fourthPhoneNumber', 'fourthPhoneNumberEnableSMS'],
] as const;

export type MessageChannel = 'EMAIL' | 'SMS';

/** The first email address, or the first phone with texts enabled; null when there is none. */
export function recipientOf(customer: Customer, channel: MessageChannel): string | null {
  if (channel === 'EMAIL') return EMAIL_FIELDS.map((f) => customer[f]).find((v) => v && v.trim()) ?? null;
  const phone = PHONES.find(([number, sms]) => customer[sms] === true && customer[number]);
  return phone ? customer[phone[0]] : null;
}
