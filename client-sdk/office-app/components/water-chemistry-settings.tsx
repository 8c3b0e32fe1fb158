import { useState, type FormEvent } from 'react';
import {
  CHEMICAL_INFO,
  CHEMICALS,
  DEFAULT_CHEMISTRY_SETTINGS,
  DOSE_UNIT_LABELS,
  DOSE_UNITS,
  measureOfUnit,
  READING_LABELS,
  type Chemical,
  type DoseUnit,
  type WaterChemistrySettings,
  type WaterTargets,
} from '../../../shared/index.js';
import { Alert } from '../../app-kit/components/alert.js';
import { Field } from '../../app-kit/components/field.js';
import { useAction, useDocs, useGraphQL, useSession } from '../../app-kit/hooks.js';
import { OfficeSaveWaterChemistryDocument, OfficeWaterChemistryDocument } from '../graphql/operations.generated.js';

/**
 * The organization's water chemistry: target ranges per kind of water (doses are suggested outside
 * min-max and aim at the target), the product used for each chemical (its catalog item and
 * strength), the chlorine and the acid preferred where several would do, per-visit caps, and the
 * fill water a drain refills with. Saved whole through GraphQL; the server checks it with the rules
 * the engine shares (ranges in order, strengths within their formulas' span, caps in the chemical's
 * measure) and says which field is wrong.
 */
const BODIES = [
  ['pool', 'Pool'],
  ['spa', 'Spa'],
  ['saltPool', 'Salt pool'],
] as const;
type Body = (typeof BODIES)[number][0];
type Reading = keyof WaterTargets;
const READINGS = Object.keys(READING_LABELS) as Reading[];
const PRODUCTS = CHEMICALS.filter((c) => c !== 'DRAIN');
const CHLORINES: Chemical[] = ['LIQUID_CHLORINE', 'CAL_HYPO', 'TRICHLOR', 'DICHLOR'];
const ACIDS: Chemical[] = ['MURIATIC_ACID', 'DRY_ACID'];
const FILL = ['calciumHardness', 'cyanuricAcid', 'salt'] as const;

type Range = { min: string; target: string; max: string };
interface Form {
  targets: Record<Body, Record<Reading, Range>>;
  products: Record<Chemical, { itemId: string; strength: string; cap: string; capUnit: DoseUnit }>;
  chlorine: Chemical;
  acid: Chemical;
  fill: Record<(typeof FILL)[number], string>;
}

const text = (n: number | null | undefined) => (n == null ? '' : String(n));

function formOf(s: WaterChemistrySettings): Form {
  const targets = Object.fromEntries(
    BODIES.map(([body]) => [body, Object.fromEntries(READINGS.map((r) => [r, { min: text(s[body][r]?.min), target: text(s[body][r]?.target), max: text(s[body][r]?.max) }]))]),
  ) as Form['targets'];
  const products = Object.fromEntries(
    PRODUCTS.map((c) => {
      const product = s.products.find((p) => p.chemical === c);
      const cap = s.caps.find((x) => x.chemical === c);
      const unit = cap?.unit ?? DOSE_UNITS.find((u) => measureOfUnit(u) === CHEMICAL_INFO[c].measure)!;
      return [c, { itemId: product?.itemId ?? '', strength: text(product?.strengthPercent), cap: text(cap?.amount), capUnit: unit }];
    }),
  ) as Form['products'];
  const first = (among: Chemical[]) => s.products.find((p) => among.includes(p.chemical))?.chemical ?? among[0]!;
  return { targets, products, chlorine: first(CHLORINES), acid: first(ACIDS), fill: { calciumHardness: text(s.fillWater?.calciumHardness), cyanuricAcid: text(s.fillWater?.cyanuricAcid), salt: text(s.fillWater?.salt) } };
}

/** The form as settings; throws naming the first field that is not a number. */
function settingsOf(form: Form): WaterChemistrySettings {
  const number = (value: string, where: string) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`${where} must be a number.`);
    return n;
  };
  const optional = (value: string, where: string) => (value.trim() === '' ? null : number(value, where));
  const targets = (body: Body, name: string): WaterTargets => {
    const range = (r: Reading) => {
      const t = form.targets[body][r];
      const where = `${name}, ${READING_LABELS[r].label}`;
      if (r === 'salt' && !t.min.trim() && !t.target.trim() && !t.max.trim()) return null;
      return { min: number(t.min, `${where}, min`), target: number(t.target, `${where}, target`), max: number(t.max, `${where}, max`) };
    };
    return { freeChlorine: range('freeChlorine')!, ph: range('ph')!, totalAlkalinity: range('totalAlkalinity')!, calciumHardness: range('calciumHardness')!, cyanuricAcid: range('cyanuricAcid')!, salt: range('salt') };
  };
  // The preferred chlorine and acid go first: the engine takes the first listed where several would do.
  const order = [form.chlorine, form.acid, ...PRODUCTS.filter((c) => c !== form.chlorine && c !== form.acid)];
  const products = order
    .map((c) => ({ chemical: c, itemId: form.products[c].itemId || null, strengthPercent: optional(form.products[c].strength, `${CHEMICAL_INFO[c].label}, strength`) }))
    .filter((p) => p.itemId || p.strengthPercent != null || p.chemical === form.chlorine || p.chemical === form.acid);
  const caps = PRODUCTS.filter((c) => form.products[c].cap.trim()).map((c) => ({ chemical: c, amount: number(form.products[c].cap, `${CHEMICAL_INFO[c].label}, cap`), unit: form.products[c].capUnit }));
  const fill = { calciumHardness: optional(form.fill.calciumHardness, 'Fill water calcium'), cyanuricAcid: optional(form.fill.cyanuricAcid, 'Fill water cyanuric acid'), salt: optional(form.fill.salt, 'Fill water salt') };
  return {
    pool: targets('pool', 'Pool'),
    spa: targets('spa', 'Spa'),
    saltPool: targets('saltPool', 'Salt pool'),
    products,
    caps,
    fillWater: Object.values(fill).some((v) => v != null) ? fill : null,
  };
}

export function WaterChemistrySettingsForm() {
  const saved = useGraphQL(OfficeWaterChemistryDocument, undefined, []);
  if (!saved.data) return saved.error ? <Alert message={saved.error} /> : <p className="loading">Loading water chemistry…</p>;
  return <Editor initial={formOf(saved.data.organization.settings.waterChemistry ?? DEFAULT_CHEMISTRY_SETTINGS)} onSaved={saved.reload} />;
}

function Editor({ initial, onSaved }: { initial: Form; onSaved: () => void }) {
  const { api } = useSession();
  const items = useDocs('inventoryItems', { category: 'CHEMICAL' }, []);
  const [form, setForm] = useState(initial);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const edit = (change: (f: Form) => void) => {
    const next = structuredClone(form);
    change(next);
    setSaved(false);
    setForm(next);
  };
  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await save.run(() => api.graphql(OfficeSaveWaterChemistryDocument, { input: { waterChemistry: settingsOf(form) } }));
    if (done) {
      setSaved(true);
      onSaved();
    }
  }
  const reset = () =>
    save.run(async () => {
      await api.graphql(OfficeSaveWaterChemistryDocument, { input: { waterChemistry: null } });
      setForm(formOf(DEFAULT_CHEMISTRY_SETTINGS));
      onSaved();
    });
  return (
    <form className="card-form wide water-settings" onSubmit={submit} aria-labelledby="water-title">
      <h2 id="water-title">Water chemistry</h2>
      <p className="hint">Doses are suggested for a reading outside min–max and bring it to the target. A pool and a spa have no salt range: salt is only added to a salt pool.</p>
      <table className="list targets">
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Reading
            </th>
            {BODIES.map(([body, name]) => (
              <th key={body} scope="colgroup" colSpan={3}>
                {name}
              </th>
            ))}
          </tr>
          <tr>
            {BODIES.flatMap(([body]) => ['min', 'target', 'max'].map((k) => <th key={`${body}-${k}`} scope="col">{k}</th>))}
          </tr>
        </thead>
        <tbody>
          {READINGS.map((r) => (
            <tr key={r}>
              <th scope="row">
                {READING_LABELS[r].label}
                {READING_LABELS[r].unit && <span className="hint"> ({READING_LABELS[r].unit})</span>}
              </th>
              {BODIES.flatMap(([body, name]) =>
                (['min', 'target', 'max'] as const).map((k) => (
                  <td key={`${body}-${k}`}>
                    <input
                      className="number-input"
                      inputMode="decimal"
                      aria-label={`${name} ${READING_LABELS[r].label} ${k}`}
                      value={form.targets[body][r][k]}
                      onChange={(e) => edit((f) => (f.targets[body][r][k] = e.target.value))}
                    />
                  </td>
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="toolbar">
        <Field label="Chlorine from">
          <select value={form.chlorine} onChange={(e) => edit((f) => (f.chlorine = e.target.value as Chemical))}>
            {CHLORINES.map((c) => (
              <option key={c} value={c}>
                {CHEMICAL_INFO[c].label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="pH and alkalinity down with">
          <select value={form.acid} onChange={(e) => edit((f) => (f.acid = e.target.value as Chemical))}>
            {ACIDS.map((c) => (
              <option key={c} value={c}>
                {CHEMICAL_INFO[c].label}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <table className="list products">
        <thead>
          <tr>
            <th scope="col">Chemical</th>
            <th scope="col">Catalog item</th>
            <th scope="col">Strength %</th>
            <th scope="col">Cap per visit</th>
            <th scope="col">Cap unit</th>
          </tr>
        </thead>
        <tbody>
          {PRODUCTS.map((c) => {
            const info = CHEMICAL_INFO[c];
            const p = form.products[c];
            return (
              <tr key={c}>
                <th scope="row">{info.label}</th>
                <td>
                  <select aria-label={`${info.label} catalog item`} value={p.itemId} onChange={(e) => edit((f) => (f.products[c].itemId = e.target.value))}>
                    <option value="">—</option>
                    {(items ?? []).map((i) => (
                      <option key={i.id} value={i.id}>
                        {i.name}
                        {i.unit ? ` (${i.unit})` : ''}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input className="number-input" inputMode="decimal" aria-label={`${info.label} strength percent`} placeholder={String(info.strength?.default ?? '')} value={p.strength} onChange={(e) => edit((f) => (f.products[c].strength = e.target.value))} />
                </td>
                <td>
                  <input className="number-input" inputMode="decimal" aria-label={`${info.label} cap per visit`} value={p.cap} onChange={(e) => edit((f) => (f.products[c].cap = e.target.value))} />
                </td>
                <td>
                  <select aria-label={`${info.label} cap unit`} value={p.capUnit} onChange={(e) => edit((f) => (f.products[c].capUnit = e.target.value as DoseUnit))}>
                    {DOSE_UNITS.filter((u) => measureOfUnit(u) === info.measure).map((u) => (
                      <option key={u} value={u}>
                        {DOSE_UNIT_LABELS[u]}
                      </option>
                    ))}
                  </select>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <fieldset className="inline-fields">
        <legend>Fill water: what the refill after a drain holds (empty: 0)</legend>
        {FILL.map((k) => (
          <Field key={k} label={`${READING_LABELS[k].label} (ppm)`}>
            <input className="number-input" inputMode="decimal" value={form.fill[k]} onChange={(e) => edit((f) => (f.fill[k] = e.target.value))} />
          </Field>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={save.busy}>
          Save water chemistry
        </button>
        <button type="button" disabled={save.busy} onClick={() => void reset()}>
          Back to the defaults
        </button>
        {saved && <span role="status">Saved. Phones follow at their next sync.</span>}
      </div>
      <Alert message={save.error} />
    </form>
  );
}
