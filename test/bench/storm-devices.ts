import http from 'node:http';
import { gunzipSync } from 'node:zlib';

/**
 * Light technician devices for the morning-storm bench, many in one process: each speaks the
 * replication protocol as a phone would (its own connections, gzip, every collection pulled from
 * the start in pages, then its live stream held open) without an RxDB replica, so the bench
 * measures the server. Started with a JSON plan on argv[2]; prints one JSON line per event the
 * bench waits for, and the devices' report on SIGTERM. On SIGUSR2 every device pushes, at once, the
 * visits of this week it holds still open (up to `visitsPerPush`), completed with readings and notes:
 * the hour when the first visits of the day are done and every phone sends them.
 *
 *   {"devices": [{"token", "url", "startAtMs"}], "collections": [...], "pullLimit": 1000}
 */
interface Plan {
  devices: { token: string; url: string; startAtMs: number }[];
  collections: string[];
  pullLimit: number;
  visitsPerPush: number;
}

export interface DeviceReport {
  startedAt: number;
  inSyncAt: number | null;
  requests: number;
  refused: number;
  failed: number;
  documents: number;
  wireBytes: number;
  jsonBytes: number;
  /** Change events received on the stream, and the latency of each fan-out marker (ms). */
  events: number;
  latencies: number[];
  /** Marker -> when it arrived (the moved-visit probes). */
  arrivals: Record<string, number>;
  /** The completed visits' push: rows sent, rows answered with the server's state (it computes fields of a completed visit), how long it took (ms). */
  pushed: number;
  pushAnswered: number;
  pushMs: number | null;
}

const plan = JSON.parse(process.argv[2]!) as Plan;
const reports: DeviceReport[] = plan.devices.map(() => ({
  startedAt: 0,
  inSyncAt: null,
  requests: 0,
  refused: 0,
  failed: 0,
  documents: 0,
  wireBytes: 0,
  jsonBytes: 0,
  events: 0,
  latencies: [],
  arrivals: {},
  pushed: 0,
  pushAnswered: 0,
  pushMs: null,
}));
/** A device: its plan, its report, its connections for requests, and this week's open visits it pulled (what it completes when told to push). */
interface Phone {
  device: Plan['devices'][number];
  report: DeviceReport;
  agent: http.Agent;
  openVisits: Record<string, unknown>[];
}
const phones: Phone[] = plan.devices.map((device, i) => ({ device, report: reports[i]!, agent: new http.Agent({ keepAlive: true, maxSockets: 2 }), openVisits: [] }));
const MARKER = /storm-fanout-(\d+)@(\d+)/g;
const PROBE = /storm-probe-[a-z0-9-]+/g;
const CUSTOMER = /"id":"(cust-\d+)"/g;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One GET with the device's own connections; the body decoded. Retries a refusal after its Retry-After. */
async function get(agent: http.Agent, url: string, token: string, report: DeviceReport): Promise<string> {
  for (;;) {
    report.requests++;
    const { status, headers, body } = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = http.get(url, { agent, headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    });
    report.wireBytes += body.length;
    if (status === 429) {
      report.refused++;
      await sleep(1000 * Number(headers['retry-after'] ?? 1));
      continue;
    }
    if (status !== 200) {
      report.failed++;
      throw new Error(`${url}: HTTP ${status} ${body.toString().slice(0, 200)}`);
    }
    const text = headers['content-encoding'] === 'gzip' ? gunzipSync(body).toString('utf8') : body.toString('utf8');
    report.jsonBytes += Buffer.byteLength(text);
    return text;
  }
}

async function initialSync({ device, report, agent, openVisits }: Phone): Promise<void> {
  for (const collection of plan.collections) {
    let checkpoint = 0;
    for (;;) {
      const page = JSON.parse(await get(agent, `${device.url}/sync/${collection}/pull?checkpoint=${checkpoint}&limit=${plan.pullLimit}`, device.token, report)) as {
        documents: unknown[];
        checkpoint: { seq: number };
      };
      report.documents += page.documents.length;
      if (collection === 'services') keepOpenVisits(openVisits, page.documents as Record<string, unknown>[]);
      checkpoint = page.checkpoint.seq;
      if (page.documents.length < plan.pullLimit) break;
    }
  }
}

function keepOpenVisits(kept: Record<string, unknown>[], documents: Record<string, unknown>[]): void {
  const weekAgo = Date.now() - 7 * 86_400_000;
  for (const doc of documents) {
    if (kept.length >= plan.visitsPerPush) return;
    if (!doc._deleted && !doc.endTime && typeof doc.startTime === 'string' && Date.parse(doc.startTime) > weekAgo) kept.push(doc);
  }
}

/** One POST of JSON with the device's own connections; the answer parsed. */
function post(agent: http.Agent, url: string, token: string, body: unknown, report: DeviceReport): Promise<{ status: number; body: string }> {
  report.requests++;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.end(JSON.stringify(body));
  });
}

/** The device's open visits, completed as a technician completes them, in one push (retried after a refusal). */
async function pushCompletedVisits({ device, report, agent, openVisits: visits }: Phone): Promise<void> {
  if (!visits.length) return;
  const endTime = new Date().toISOString();
  const rows = visits.map((visit) => ({
    assumedMasterState: visit,
    newDocumentState: { ...visit, endTime, notes: 'Brushed, vacuumed, emptied the baskets.', chemicalReadings: { freeChlorine: 2.5, ph: 7.5, totalAlkalinity: 95 } },
    changeId: `storm-${visit.id}-${endTime}`,
  }));
  const started = Date.now();
  for (;;) {
    const answer = await post(agent, `${device.url}/sync/services/push`, device.token, rows, report);
    if (answer.status === 429) {
      report.refused++;
      await sleep(1000);
      continue;
    }
    if (answer.status !== 200) {
      report.failed++;
      throw new Error(`push: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
    }
    report.pushAnswered += (JSON.parse(answer.body) as unknown[]).length;
    break;
  }
  report.pushMs = Date.now() - started;
  report.pushed = rows.length;
}

/** Holds the stream open; counts change events and times the fan-out markers in them. */
function holdStream(device: Plan['devices'][number], report: DeviceReport, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${device.url}/sync/stream`, { agent, headers: { authorization: `Bearer ${device.token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: HTTP ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = Date.now();
        buffer += chunk;
        const blocks = buffer.split('\n\n');
        buffer = blocks.pop()!;
        for (const block of blocks) {
          if (!block.startsWith('data:')) continue;
          if (block.includes('"type":"RESYNC"')) resolve();
          if (!block.includes('"type":"changes"')) continue;
          report.events++;
          for (const [, , at] of block.matchAll(MARKER)) report.latencies.push(now - Number(at));
          for (const [probe] of block.matchAll(PROBE)) report.arrivals[probe] ??= now;
          if (block.includes('"collection":"customers"')) for (const [, id] of block.matchAll(CUSTOMER)) report.arrivals[id!] ??= now;
        }
      });
      res.on('end', () => reject(new Error('stream ended')));
    });
    req.on('error', reject);
  });
}

async function run(phone: Phone): Promise<void> {
  const { device, report } = phone;
  await sleep(Math.max(0, device.startAtMs - Date.now()));
  report.startedAt = Date.now();
  try {
    await initialSync(phone);
    await holdStream(device, report, new http.Agent({ keepAlive: true, maxSockets: 1 }));
    report.inSyncAt = Date.now();
  } catch (error) {
    console.error(String(error));
  }
}

Promise.all(phones.map(run)).then(() => console.log(JSON.stringify({ ready: true })));

process.on('SIGUSR2', () => {
  Promise.all(phones.map((phone) => pushCompletedVisits(phone).catch((error) => console.error(String(error))))).then(() => console.log(JSON.stringify({ pushed: true })));
});

process.on('SIGTERM', () => {
  process.stdout.write(`${JSON.stringify({ reports })}\n`, () => process.exit(0));
});
