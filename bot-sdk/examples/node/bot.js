// A complete dudo bot in Node.js, with @grpc/grpc-js and the protos loaded from proto/ at start.
//
//     node bot.js HOST:PORT JOINCODE [NAME]
//     node bot.js https://HOST:PORT JOINCODE [NAME]   (a server with TLS; DUDO_CA_CERT names
//                                                     a CA certificate to trust)
//
// or with DUDO_SERVER and DUDO_TABLE set (DUDO_API_TOKEN to sit as an account; DUDO_TOKEN and
// DUDO_SEAT to play a seat already held, as `dudo ladder --bot` and `dudo arena --external` do).
// It plays one game and prints its place. `npm ci` here installs what it needs.
'use strict';
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO = path.join(__dirname, '..', '..', '..', 'proto');
const definition = protoLoader.loadSync('dudo/v1/service.proto', {
  includeDirs: [PROTO],
  keepCase: true, // field names as in the .proto files: last_seq, call_window_unix_millis
  longs: String, // 64-bit fields (seq, since, last_seq) come as strings: compare them as such
  enums: String,
  defaults: true, // fields at zero are there (seat 0 is 0, not missing)
  oneofs: true, // each oneof names its field: update.update === 'prompt'; optional fields are
  // oneofs of their own: view._turn === 'turn' when a turn is set
});
const dudo = grpc.loadPackageDefinition(definition).dudo.v1;

// ---- the bot's logic: 25 lines ----
function choose(view, legal, faces) {
  // Challenge a bid that needs more dice than we expect; otherwise raise on our best face.
  const wild = view._wild === 'wild' ? view.wild : null;
  const unknown = view.players.filter((p) => p._place !== 'place').reduce((n, p) => n + p.dice, 0) - view.my_dice.length;
  const expected = (face) => {
    const mine = view.my_dice.filter((d) => d === face || (wild && d === wild && face !== wild)).length;
    return mine + (unknown * (wild && face !== wild ? 2 : 1)) / faces;
  };
  if (view._current_bid === 'current_bid' && legal.dudo.length > 0) {
    const bid = view.current_bid.bid;
    if (bid.quantity > expected(bid.face) + 0.5) return { dudo: {} };
  }
  if (legal.bids.length > 0) {
    const score = (r) => expected(r.face) - r.min_quantity;
    const best = legal.bids.reduce((a, b) => (score(b) > score(a) ? b : a));
    return { bid: { quantity: best.min_quantity, face: best.face } };
  }
  if (legal.dudo.length > 0) return { dudo: {} };
  if (legal._claim_from === 'claim_from') return { claim: legal.claim_from }; // the cup games
  if (legal._roll === 'roll') return { roll: { dice: view.hand.dice.map((_, i) => i) } };
  if (legal.dogs_life) return { dogs_life: { bark: true } };
  return { accept: {} };
}
// ---- end of the bot's logic ----

function bearer(token) {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

const call = (client, method, request, metadata = new grpc.Metadata()) =>
  new Promise((resolve, reject) => client[method](request, metadata, (e, reply) => (e ? reject(e) : resolve(reply))));

async function main() {
  const [argServer, argTable, argName] = process.argv.slice(2);
  const address = argServer || process.env.DUDO_SERVER || '127.0.0.1:50051';
  let table = argTable || process.env.DUDO_TABLE;
  const name = argName || process.env.DUDO_BOT_NAME || 'nodebot';
  // https:// is TLS, checked against the system's roots or the CA that DUDO_CA_CERT names.
  const tls = address.startsWith('https://');
  const server = address.replace(/^https?:\/\//, '').replace(/\/$/, '');
  const ca = process.env.DUDO_CA_CERT ? fs.readFileSync(process.env.DUDO_CA_CERT) : null;
  const credentials = tls ? grpc.credentials.createSsl(ca) : grpc.credentials.createInsecure();
  const lobby = new dudo.Lobby(server, credentials);
  const play = new dudo.Play(server, credentials);
  let token;
  let seat;
  if (process.env.DUDO_TOKEN) {
    [token, seat] = [process.env.DUDO_TOKEN, Number(process.env.DUDO_SEAT || 0)];
    table = (await call(lobby, 'GetTable', { table })).id;
  } else {
    // An account's seat (`dudo account register NAME --bot`) sits under the account's name.
    const account = process.env.DUDO_API_TOKEN ? bearer(process.env.DUDO_API_TOKEN) : undefined;
    const request = account ? { table } : { table, name };
    const joined = await call(lobby, 'JoinTable', request, account);
    [token, seat, table] = [joined.token, joined.seat, joined.table.id];
  }
  let faces = 6;
  // The last prompt answered, by its last_seq: a prompt that comes again with the same
  // last_seq (after a call window closes, say) is the same decision, answered once.
  let answered = null;
  // The last event seen: a dropped stream resumes after it.
  let since = null;
  let tries = 0;
  // Opens the seat's stream; a stream the server drops (a lost connection, a server
  // restarting, the table moving to another node of a cluster) is opened again, resumed after
  // the last event seen; one it ends with ABORTED (a reset, seats renumbered) afresh.
  const open = () => {
    const stream = play.Play(bearer(token));
    stream.write({ hello: since === null ? { table } : { table, since } });
    stream.on('data', (update) => {
      tries = 0;
      if (update.update === 'snapshot' || update.update === 'table') {
        const info = update.update === 'snapshot' ? update.snapshot.table : update.table;
        faces = (info && info.rules && info.rules.dice.faces) || faces;
        if (update.update === 'snapshot' && update.snapshot._last_seq === 'last_seq') {
          since = update.snapshot.last_seq;
        }
        if (update.update === 'snapshot' && update.snapshot.view && update.snapshot.view._seat === 'seat') {
          seat = update.snapshot.view.seat;
        }
      } else if (update.update === 'prompt' && update.prompt.last_seq !== answered) {
        const p = update.prompt;
        answered = p.last_seq;
        if (p._call_window_unix_millis === 'call_window_unix_millis') {
          // Asked whether to call out of turn (calza): this bot never does, and says so at
          // once rather than make the table wait out the window.
          stream.write({ pass_call: {}, answers: p.last_seq });
        } else if (p.view._turn === 'turn' && p.view.turn === seat) {
          // `answers` names the prompt: if the game moved on first, this is refused.
          stream.write({ action: choose(p.view, p.legal, faces), answers: p.last_seq });
        }
      } else if (update.update === 'rejected') {
        // Refused: the server prompts again at once, with the same last_seq, and that prompt
        // is answered afresh. Not after an answer to a position the game has moved past: its
        // fresh prompt went out as the game moved.
        const r = update.rejected;
        console.error(`${name}: refused (${r.code}): ${r.reason}`);
        if (r.code !== 'stale_prompt' && r.code !== 'call_window_closed') answered = null;
      } else if (update.update === 'event') {
        since = update.event.seq;
        if (update.event.kind === 'game_over') {
          const standings = update.event.game_over.standings;
          console.log(`${name}: game over, place ${standings.indexOf(seat) + 1} of ${standings.length}`);
          stream.end();
          process.exit(0);
        }
      }
    });
    stream.on('error', (e) => {
      const again = [grpc.status.UNAVAILABLE, grpc.status.UNKNOWN, grpc.status.INTERNAL, grpc.status.CANCELLED];
      if (e.code === grpc.status.NOT_FOUND) {
        console.log(`${name}: the table is gone (${e.details})`);
        process.exit(0);
      }
      if (e.code === grpc.status.ABORTED) {
        [since, answered] = [null, null];
      } else if (!again.includes(e.code) || tries >= 30) {
        console.error(`${name}: ${e.message}`);
        process.exit(1);
      }
      // An answer sent as the stream dropped may not have arrived: the prompt that comes
      // again is answered again.
      answered = null;
      tries += 1;
      setTimeout(open, 200);
    });
  };
  open();
}

main().catch((e) => {
  console.error(e.message);
  process.exit(1);
});
