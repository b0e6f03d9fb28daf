// The server's services over gRPC-Web, from the page's own origin, and the seats this
// browser holds (kept in its storage, so a reload returns to the seat).
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { History, Lobby, Play } from "./gen/dudo/v1/service_pb";

export const transport = createGrpcWebTransport({ baseUrl: location.origin });

export const lobby: Client<typeof Lobby> = createClient(Lobby, transport);
export const play: Client<typeof Play> = createClient(Play, transport);
export const history: Client<typeof History> = createClient(History, transport);

/** Call options carrying a seat's (or a host's) token. */
export function as(token: string) {
  return { headers: { authorization: `Bearer ${token}` } };
}

/** A seat (or a host-only creator's place) this browser holds at a table. */
export type Held = {
  table: string;
  code: string;
  token: string;
  seat: number;
  seated: boolean;
  name: string;
};

const KEY = "dudo.seats";

function all(): Held[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(KEY) ?? "[]");
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The seat held at the table with this code (or id), if any. */
export function heldAt(code: string): Held | undefined {
  const key = code.toUpperCase();
  return all().find((h) => h.code.toUpperCase() === key || h.table === code);
}

export function keep(held: Held) {
  // At most a few dozen kept: old ones go first.
  const rest = all().filter((h) => h.table !== held.table).slice(-40);
  localStorage.setItem(KEY, JSON.stringify([...rest, held]));
}

export function forget(table: string) {
  localStorage.setItem(KEY, JSON.stringify(all().filter((h) => h.table !== table)));
}

/** The name last used here, offered again. */
export function lastName(): string {
  return localStorage.getItem("dudo.name") ?? "";
}

export function rememberName(name: string) {
  localStorage.setItem("dudo.name", name);
}

/** The server's stable refusal code (`bid_not_higher`, `server_busy`…), if it gave one. */
export function codeOf(e: unknown): string | undefined {
  return e instanceof ConnectError ? (e.metadata.get("dudo-code") ?? undefined) : undefined;
}

/** What to tell a person about a failed call: the server's own words. */
export function say(e: unknown): string {
  if (e instanceof ConnectError) {
    return e.code === Code.Unavailable ? `The server cannot be reached (${e.rawMessage}).` : e.rawMessage;
  }
  return String(e);
}

export { Code, ConnectError };

/** The presets' titles by name ("fibbing" → "Perudo as the Fibbing Dice table plays it"),
 * asked for once a page. */
let titles: Promise<Map<string, string>> | undefined;
export function presetTitles(): Promise<Map<string, string>> {
  titles ??= lobby.listPresets({}).then(
    (r) => new Map(r.presets.map((p) => [p.name, p.title])),
    () => new Map(),
  );
  return titles;
}
