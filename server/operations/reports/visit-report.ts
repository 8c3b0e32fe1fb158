import { BAND_WORDS, READING_LABELS, visitChemistry, type BalanceBand, type Customer, type Organization, type ReadingRange, type ReadingView, type Service, type VisitChemistry } from '../../../shared/index.js';
import { customers } from '../../storage/customers.js';
import type { Queryable } from '../../storage/db.js';
import { stockOnVisit } from '../../storage/inventory.js';
import { organizations } from '../../storage/organizations.js';
import { services, serviceTypes } from '../../storage/services.js';
import { users } from '../../storage/tokens.js';
import { REPORT_LINK } from './links.js';

/**
 * What a customer is told about a visit: the one input of the email, the text and the report page
 * (report-view.tsx), built from the visit as it is now. Everything here that a person typed (notes,
 * captions, names) is shown as text, never as markup.
 */
export interface VisitReportView {
  organization: { name: string; phone: string | null; email: string | null; website: string | null; hasLogo: boolean };
  customerName: string;
  /** e.g. "Thursday, November 26, 2026", in the organization's time zone. */
  visitDate: string;
  /** A first name only: the customer knows the technician, the internet need not know more. */
  technicianFirstName: string | null;
  serviceType: string | null;
  /**
   * In the fixed order of the shared reading ranges, each marked when outside the organization's
   * range for the customer's kind of water (pool, spa, salt pool), the range it was marked against beside it.
   */
  readings: ReportReading[];
  /** The water's balance (CSI, or the LSI when only it could be computed); null when neither could be. */
  balance: ReportBalance | null;
  water: { label: string; value: string }[];
  notes: string | null;
  /** Photos whose bytes have arrived. */
  photos: { id: string; caption: string | null }[];
  /** What was added or used: each dose with its corrections folded in, then any other stock used. */
  added: ReportAdded[];
}

export interface ReportReading extends ReadingView {
  range: Pick<ReadingRange, 'min' | 'max'> | null;
}

export interface ReportBalance {
  band: BalanceBand;
  /** The band in words: "Balanced", "Slightly corrosive", ... */
  words: string;
  index: 'CSI' | 'LSI';
  value: number;
  formulaVersion: number;
}

export interface ReportAdded {
  name: string;
  quantity: number;
  unit: string | null;
  /** For a dose: the reading it was for, in words ("pH"). */
  forReading: string | null;
}

export interface LoadedReport {
  view: VisitReportView;
  visit: Service;
  customer: Customer;
  organization: Organization;
}

/** The report of a visit as it is now; null when the visit, its customer or its end time is missing. */
export async function loadVisitReport(q: Queryable, orgId: string, serviceId: string): Promise<LoadedReport | null> {
  const visit = await services.findById(q, orgId, serviceId);
  if (!visit?.customerId || !visit.endTime) return null;
  // One after another: inside a transaction these share one connection.
  const customer = await customers.findById(q, orgId, visit.customerId);
  const organization = await organizations.findById(q, orgId, orgId);
  const technician = visit.newTechnicianId ? await users.findById(q, orgId, visit.newTechnicianId) : null;
  const type = visit.typeId ? await serviceTypes.findById(q, orgId, visit.typeId) : null;
  const stock = await stockOnVisit(q, orgId, serviceId);
  if (!customer || !organization) return null;
  const chemistry = visitChemistry({ visit, customer, organizationSettings: organization.settings, ...stock });
  const view: VisitReportView = {
    organization: {
      name: organization.name,
      phone: organization.phone,
      email: organization.settings.emailReplyTo ?? organization.email,
      website: organization.website,
      hasLogo: organization.logoKey !== null,
    },
    customerName: [customer.firstName, customer.lastName].filter(Boolean).join(' '),
    visitDate: new Intl.DateTimeFormat('en-US', { dateStyle: 'full', timeZone: organization.timezone }).format(new Date(visit.endTime)),
    technicianFirstName: technician?.name.trim().split(/\s+/)[0] || null,
    serviceType: type?.display ?? null,
    readings: readingsWithRanges(chemistry),
    balance: balanceOf(chemistry),
    water: waterOf(visit),
    notes: visit.notes?.trim() || null,
    photos: visit.photos.filter((p) => p.size != null).map((p) => ({ id: p.id, caption: p.caption })),
    added: addedOf(chemistry),
  };
  return { view: withoutLinkMarks(view), visit, customer, organization };
}

/** Drops the stand-in for the report's link from everything shown, so no typed text can become one. */
function withoutLinkMarks(view: VisitReportView): VisitReportView {
  return JSON.parse(JSON.stringify(view).replaceAll(REPORT_LINK, '')) as VisitReportView;
}

function readingsWithRanges(chemistry: VisitChemistry): ReportReading[] {
  return chemistry.readings.map((reading) => {
    const range = chemistry.ranges[reading.field];
    return { ...reading, range: range ? { min: range.min, max: range.max } : null };
  });
}

function balanceOf({ balance }: VisitChemistry): ReportBalance | null {
  if (!balance.band) return null;
  const index = balance.csi != null ? 'CSI' : 'LSI';
  return { band: balance.band, words: BAND_WORDS[balance.band], index, value: (index === 'CSI' ? balance.csi : balance.lsi)!, formulaVersion: balance.formulaVersion };
}

/** Doses and stock used, as the customer reads them; a dose corrected down to nothing is not shown. */
function addedOf({ added }: VisitChemistry): ReportAdded[] {
  return added
    .filter((line) => line.quantity > 0)
    .map((line) => ({
      name: line.itemName,
      quantity: line.quantity,
      unit: line.unit,
      forReading: READING_LABELS[line.reading as keyof typeof READING_LABELS]?.label ?? null,
    }));
}

const WATER_FIELDS = [
  ['waterCondition', 'Water'],
  ['waterColor', 'Color'],
  ['waterLevel', 'Water level'],
  ['vacuum', 'Vacuumed'],
] as const;

/** "CLEAR" -> "Clear", "NORMAL" -> "Normal": the codes a phone records, as words. */
function waterOf(visit: Service): { label: string; value: string }[] {
  return WATER_FIELDS.flatMap(([field, label]) => {
    const value = visit[field]?.trim();
    return value ? [{ label, value: value.charAt(0).toUpperCase() + value.slice(1).toLowerCase().replace(/_/g, ' ') }] : [];
  });
}
