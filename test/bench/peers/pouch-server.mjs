/**
 * The peer's server: PouchDB on LevelDB (its Node default, a folder store as our embedded one)
 * behind express-pouchdb, which speaks CouchDB's HTTP API and replication protocol. Only the
 * routes a PouchDB client needs (`minimumForPouchDB`: compression included, no logging to disk).
 * `pouch-server.mjs <folder>`: prints `listening on <url>` once it answers.
 */
import PouchDB from 'pouchdb';
import expressPouchDB from 'express-pouchdb';

const [folder] = process.argv.slice(2);
const Stored = PouchDB.defaults({ prefix: `${folder}/` });
const app = expressPouchDB(Stored, { mode: 'minimumForPouchDB' });
// The loader wrote the database directly; opening it here lists it among the server's databases
// (express-pouchdb answers 404 for one it has not seen created).
await new Stored('visits').info();
const server = app.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
