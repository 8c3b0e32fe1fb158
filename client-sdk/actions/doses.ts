import { CHEMICALS, strengthIssue, type Chemical, type Dose, type StockMovement } from '../../shared/index.js';
import { badInput, notFound } from '../errors.js';
import type { Replica } from './replica.js';
import { append, requireKnown } from './stock.js';
import { assertPositiveInteger } from './validate.js';

/**
 * A dose is a stock movement: the chemical poured on a visit, taken from the technician's truck
 * (a USE movement in whole units of the item), carrying what the engine suggested beside what was
 * used. The ledger is insert-only, so a correction is a further movement of the difference, naming
 * the dose it corrects. Both work offline and sync exactly once like any movement.
 */
export interface DoseInput {
  visitId: string;
  itemId: string;
  /** Where the chemical came from: the technician's truck (or a shared location). */
  locationId: string;
  /** Whole units of the item poured. */
  quantity: number;
  chemical: Chemical;
  /** The suggestion it follows (a dose of the engine's answer, and the formula version that gave it); null when poured without one. */
  suggestion?: (Pick<Dose, 'reading' | 'amount' | 'unit' | 'strengthPercent'> & { formulaVersion: number }) | null;
}

export async function recordDose(replica: Replica, input: DoseInput): Promise<StockMovement> {
  if (!input || typeof input !== 'object') throw badInput('recordDose: a dose is required');
  assertPositiveInteger(input.quantity, 'recordDose: quantity');
  if (!CHEMICALS.includes(input.chemical) || input.chemical === 'DRAIN') throw badInput(`recordDose: chemical must be one of ${CHEMICALS.filter((c) => c !== 'DRAIN').join(', ')}`);
  const strength = input.suggestion?.strengthPercent;
  const weak = strengthIssue(input.chemical, strength);
  if (weak) throw badInput(`recordDose: suggestion.strengthPercent ${weak}`);
  await requireVisit(replica, input.visitId);
  await requireKnown(replica.db, 'inventoryItems', input.itemId, 'Inventory item');
  await requireKnown(replica.db, 'inventoryLocations', input.locationId, 'Inventory location');
  const s = input.suggestion ?? null;
  const dose = {
    chemical: input.chemical,
    reading: s?.reading ?? null,
    suggestedAmount: s?.amount ?? null,
    suggestedUnit: s?.unit ?? null,
    strengthPercent: strength ?? null,
    formulaVersion: s?.formulaVersion ?? null,
    correctsMovementId: null,
  };
  return append(replica, { itemId: input.itemId, locationId: input.locationId, toLocationId: null, delta: -input.quantity, reason: 'USE', serviceId: input.visitId, note: null, dose }, 'recordDose');
}

/**
 * Says how much of a recorded dose was really used, in whole units of its item (0: none after
 * all). Records one movement of the difference: more used is a further USE, less a RETURN to the
 * location it came from. Earlier corrections of the same dose count.
 */
export async function correctDose(replica: Replica, movementId: string, usedQuantity: number): Promise<StockMovement> {
  if (typeof usedQuantity !== 'number' || !Number.isInteger(usedQuantity) || usedQuantity < 0) {
    throw badInput(`correctDose: usedQuantity must be a whole number of at least 0, got ${JSON.stringify(usedQuantity)}`);
  }
  const movements = replica.db.collections.stockMovements;
  const original = movements && (await movements.findOne(movementId).exec())?.toJSON();
  if (!original) throw notFound('Stock movement', movementId);
  if (!original.dose || original.dose.correctsMovementId) throw badInput(`correctDose: movement ${movementId} is not a dose (corrections name the dose itself)`);
  const corrections = await movements.find({ selector: { 'dose.correctsMovementId': movementId } }).exec();
  const recorded = -(original.delta + corrections.reduce((sum, c) => sum + c.delta, 0));
  const difference = usedQuantity - recorded;
  if (difference === 0) throw badInput(`correctDose: ${usedQuantity} is what is recorded already`);
  const dose = { ...original.dose, suggestedAmount: null, suggestedUnit: null, correctsMovementId: movementId };
  return append(
    replica,
    { itemId: original.itemId, locationId: original.locationId, toLocationId: null, delta: -difference, reason: difference > 0 ? 'USE' : 'RETURN', serviceId: original.serviceId ?? null, note: null, dose },
    'correctDose',
  );
}

async function requireVisit({ db }: Replica, id: unknown): Promise<void> {
  if (typeof id !== 'string' || !id) throw badInput('recordDose: visitId is required');
  const visits = db.collections.services;
  if (visits && !(await visits.findOne(id).exec())) throw notFound('Visit', id);
}
