// A person's account in this browser: registered here (Accounts.Register) or signed in with
// a token made elsewhere (`dudo account token new`), kept in the browser's storage like a
// seat's token. Rated play on the ladder's people's pools needs one.
import { useState } from "preact/hooks";
import { createClient } from "@connectrpc/connect";
import { as, say, transport } from "./api";
import { AccountKind, Accounts } from "./gen/dudo/v1/service_pb";

const accounts = createClient(Accounts, transport);
const KEY = "dudo.account";

/** The account this browser plays as. */
export type Signed = { name: string; token: string };

export function signedIn(): Signed | undefined {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) ?? "null");
    return kept && typeof kept.name === "string" && typeof kept.token === "string" ? kept : undefined;
  } catch {
    return undefined;
  }
}

function keepAccount(signed: Signed | undefined) {
  if (signed) localStorage.setItem(KEY, JSON.stringify(signed));
  else localStorage.removeItem(KEY);
}

/** Who this browser plays as, and the ways to become someone: register a name, or use a
 * token made with `dudo account token new`. */
export function AccountPanel({ signed, onChange }: { signed?: Signed; onChange: (s: Signed | undefined) => void }) {
  const [name, setName] = useState("");
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const set = (s: Signed | undefined) => {
    keepAccount(s);
    onChange(s);
  };
  if (signed) {
    return (
      <section class="panel" aria-label="Your account">
        <p>
          You play as <strong>{signed.name}</strong>.{" "}
          <button type="button" onClick={() => set(undefined)}>
            Sign out of this browser
          </button>
        </p>
      </section>
    );
  }
  return (
    <section class="panel" aria-label="Your account">
      <h2>Your account</h2>
      <p class="summary">Rated games are an account's: register a name (nobody else can then sit under it), or use a token you made with <code>dudo account token new</code>.</p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const made = await accounts.register({ name, kind: AccountKind.PERSON, tokenLabel: "browser" });
            set({ name: made.account?.name ?? name, token: made.token?.token ?? "" });
          } catch (err) {
            setError(say(err));
          }
        }}
      >
        <label>
          A name <input value={name} maxLength={32} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <button type="submit">Register</button>
      </form>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const who = await accounts.whoAmI({}, as(token.trim()));
            if (who.kind === AccountKind.BOT) {
              setError(`${who.name} is a bot's account: a bot plays with \`dudo ladder\`, not from this page.`);
              return;
            }
            set({ name: who.name, token: token.trim() });
          } catch (err) {
            setError(say(err));
          }
        }}
      >
        <label>
          Or a token <input type="password" value={token} maxLength={200} onInput={(e) => setToken(e.currentTarget.value)} required />
        </label>
        <button type="submit">Use it</button>
      </form>
      {error && <p role="alert">{error}</p>}
    </section>
  );
}
