import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { BalanceBand } from '../../../shared/index.js';
import type { ReportBalance, ReportReading, VisitReportView } from './visit-report.js';

/**
 * The visit report as HTML, one set of components for the email and the page a text links to, so
 * both show the same. Rendered by React on the server: every value is escaped as text, so notes,
 * captions and names a customer or technician typed can never become markup. Styles are inline and
 * the layout is tables, the HTML email clients (Outlook among them) render the same.
 */
export interface ReportLinks {
  /** The report's page (the email links to it). */
  page: string;
  photo(id: string): string;
  logo: string;
}

const INK = '#1f2933';
const MUTED = '#52606d';
const LINE = '#e4e7eb';
const ALERT = '#b42318';
const FONT = "-apple-system, 'Segoe UI', Roboto, 'Noto Sans', Helvetica, Arial, sans-serif";

function number(value: number): string {
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(value);
}

function rangeOf(reading: ReportReading): string {
  const range = reading.range;
  return range ? `${number(range.min)}–${number(range.max)}${reading.unit ? ` ${reading.unit}` : ''}` : '';
}

/** The apps' colours for each band (text on its tint). */
const BAND_COLOURS: Readonly<Record<BalanceBand, { color: string; background: string }>> = {
  BALANCED: { color: '#1d6b35', background: '#d7efdf' },
  LOW: { color: '#8a5300', background: '#fff0cc' },
  HIGH: { color: '#8a5300', background: '#fff0cc' },
  CORROSIVE: { color: ALERT, background: '#fde2e2' },
  SCALING: { color: '#5b2a86', background: '#ece0f7' },
};

/** What the index means, for a customer who has never heard of it. */
const BALANCE_MEANING = 'Below 0 water slowly etches plaster and metal; above 0 it leaves scale. Within 0.3 of 0 is balanced.';

function Balance({ balance }: { balance: ReportBalance }) {
  const value = `${balance.value < 0 ? '−' : '+'}${Math.abs(balance.value).toFixed(2)}`;
  return (
    <p style={{ margin: 0, fontSize: '14px', lineHeight: '21px', color: INK }} data-balance={balance.band}>
      <span style={{ ...BAND_COLOURS[balance.band], fontWeight: 700, padding: '2px 10px', borderRadius: '999px' }}>{balance.words}</span>
      {` ${balance.index === 'CSI' ? 'Calcite saturation index' : 'Langelier saturation index'} ${value}. `}
      <span style={{ color: MUTED }}>{BALANCE_MEANING}</span>
    </p>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <tr>
      <td style={{ padding: '18px 28px 0' }}>
        <h2 style={{ margin: '0 0 8px', fontSize: '16px', color: INK }}>{title}</h2>
        {children}
      </td>
    </tr>
  );
}

function Readings({ readings }: { readings: ReportReading[] }) {
  const cell = { padding: '6px 8px', borderBottom: `1px solid ${LINE}`, fontSize: '14px' } as const;
  return (
    <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ borderCollapse: 'collapse' }}>
      <tbody>
        {readings.map((reading) => (
          <tr key={reading.field} data-out-of-range={reading.outOfRange ? 'true' : undefined}>
            <td style={{ ...cell, color: INK }}>{reading.label}</td>
            <td style={{ ...cell, textAlign: 'right', fontWeight: 700, color: reading.outOfRange ? ALERT : INK }}>
              {number(reading.value)}
              {reading.unit ? ` ${reading.unit}` : ''}
            </td>
            <td style={{ ...cell, color: reading.outOfRange ? ALERT : MUTED, fontWeight: reading.outOfRange ? 700 : 400 }}>
              {reading.outOfRange ? `Out of range (${rangeOf(reading)})` : rangeOf(reading) ? `In range (${rangeOf(reading)})` : ''}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The report itself: what was done, measured, used and seen. */
export function ReportContent({ view, links }: { view: VisitReportView; links: ReportLinks }) {
  const text = { margin: 0, fontSize: '14px', lineHeight: '21px', color: INK } as const;
  const who = view.technicianFirstName ? `${view.technicianFirstName} from ${view.organization.name}` : view.organization.name;
  return (
    <>
      <tr>
        <td style={{ padding: '24px 28px 8px', borderBottom: `3px solid #0b5cad` }}>
          {view.organization.hasLogo && <img src={links.logo} alt="" height={48} style={{ display: 'block', height: '48px', width: 'auto', marginBottom: '10px' }} />}
          <div style={{ fontSize: '20px', fontWeight: 700, color: INK }}>{view.organization.name}</div>
          <div style={{ fontSize: '13px', color: MUTED, paddingBottom: '8px' }}>Visit report</div>
        </td>
      </tr>
      <tr>
        <td style={{ padding: '18px 28px 0' }}>
          <p style={text}>{`Hello ${view.customerName}, ${who}${view.serviceType ? ` (${view.serviceType})` : ''} serviced your pool on ${view.visitDate}.`}</p>
        </td>
      </tr>
      {view.readings.length > 0 && (
        <Section title="Water readings">
          <Readings readings={view.readings} />
        </Section>
      )}
      {view.balance && (
        <Section title="Water balance">
          <Balance balance={view.balance} />
        </Section>
      )}
      {view.added.length > 0 && (
        <Section title="Added and used on this visit">
          {view.added.map((a, i) => (
            <p key={i} style={text}>
              {number(a.quantity)} {a.unit ?? ''} {a.name}
              {a.forReading && <span style={{ color: MUTED }}>{` (for ${a.forReading})`}</span>}
            </p>
          ))}
        </Section>
      )}
      {view.water.length > 0 && (
        <Section title="What we saw">
          {view.water.map((w) => (
            <p key={w.label} style={text}>
              {w.label}: {w.value}
            </p>
          ))}
        </Section>
      )}
      {view.notes && (
        <Section title="Notes">
          <p style={{ ...text, whiteSpace: 'pre-wrap' }} data-notes="">
            {view.notes}
          </p>
        </Section>
      )}
      {view.photos.length > 0 && (
        <Section title="Photos">
          {view.photos.map((photo) => (
            <div key={photo.id} style={{ marginBottom: '12px' }}>
              <a href={links.photo(photo.id)}>
                <img src={links.photo(photo.id)} alt={photo.caption ?? 'Photo from the visit'} width={544} style={{ display: 'block', width: '100%', maxWidth: '544px', height: 'auto', borderRadius: '4px' }} />
              </a>
              {photo.caption && <p style={{ ...text, color: MUTED, fontSize: '13px' }}>{photo.caption}</p>}
            </div>
          ))}
        </Section>
      )}
    </>
  );
}

function Contact({ view }: { view: VisitReportView }) {
  const parts = [view.organization.phone, view.organization.email, view.organization.website].filter(Boolean);
  return parts.length ? <p style={{ margin: '4px 0 0', fontSize: '12px', color: MUTED }}>{parts.join(' · ')}</p> : null;
}

function Frame({ view, children }: { view: VisitReportView; children: ReactNode }) {
  return (
    <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ background: '#f4f6f8', fontFamily: FONT }}>
      <tbody>
        <tr>
          <td align="center" style={{ padding: '24px 8px' }}>
            <table role="presentation" width="600" cellPadding={0} cellSpacing={0} style={{ width: '100%', maxWidth: '600px', background: '#ffffff', borderRadius: '6px' }}>
              <tbody>
                {children}
                <tr>
                  <td style={{ padding: '20px 28px 24px' }}>
                    <p style={{ margin: 0, fontSize: '12px', color: MUTED }}>{view.organization.name}</p>
                    <Contact view={view} />
                  </td>
                </tr>
              </tbody>
            </table>
          </td>
        </tr>
      </tbody>
    </table>
  );
}

/** The email's HTML part: the report, and a link to its page. */
export function reportEmailHtml(view: VisitReportView, links: ReportLinks): string {
  const body = renderToStaticMarkup(
    <Frame view={view}>
      <ReportContent view={view} links={links} />
      <tr>
        <td style={{ padding: '20px 28px 0' }}>
          <a href={links.page} style={{ display: 'inline-block', padding: '10px 16px', background: '#0b5cad', color: '#ffffff', textDecoration: 'none', borderRadius: '4px', fontSize: '14px' }}>
            View this report online
          </a>
        </td>
      </tr>
    </Frame>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeText(`Visit report from ${view.organization.name}`)}</title></head><body style="margin:0;padding:0">${body}</body></html>`;
}

/** The page a text links to: the same report, on its own. */
export function reportPageHtml(view: VisitReportView, links: ReportLinks): string {
  const body = renderToStaticMarkup(
    <Frame view={view}>
      <ReportContent view={view} links={links} />
    </Frame>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeText(`Visit report: ${view.organization.name}, ${view.visitDate}`)}</title></head><body style="margin:0;padding:0">${body}</body></html>`;
}

/** A page for a link that no longer works (revoked, expired, or never issued). */
export function reportGonePage(): string {
  const body = renderToStaticMarkup(
    <div style={{ fontFamily: FONT, maxWidth: '480px', margin: '64px auto', padding: '0 16px', color: INK }}>
      <h1 style={{ fontSize: '20px' }}>This report is not available</h1>
      <p style={{ fontSize: '14px', color: MUTED }}>The link has expired or was withdrawn. Please ask your pool service for a new one.</p>
    </div>,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Report not available</title></head><body>${body}</body></html>`;
}

/** The <title>, which React does not render here: the same escaping. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
