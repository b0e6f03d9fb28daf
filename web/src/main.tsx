// dudo's browser pages: `/` the lobby, `/t/CODE` a table (the link people share), `/games`
// finished games, `/g/ID` a game's replay, `/ladder` the pools' boards and
// `/ladder/POOL/NAME` a player's ratings. The server answers each of these paths with this
// one page, which picks what to draw from the address.
import { render } from "preact";
import { GamesPage, ReplayPage } from "./history";
import { LadderPage, PlayerPage } from "./ladder";
import { LobbyPage } from "./lobby";
import { TablePage } from "./table";

function App() {
  const path = location.pathname;
  // A malformed escape (`%E0%A4%A`) is taken as written: the server then says no such table.
  const part = (m: RegExpMatchArray, i: number) => {
    try {
      return decodeURIComponent(m[i]);
    } catch {
      return m[i];
    }
  };
  let m: RegExpMatchArray | null;
  if ((m = path.match(/^\/t\/([^/]+)\/?$/))) return <TablePage code={part(m, 1)} />;
  if ((m = path.match(/^\/g\/([^/]+)\/?$/))) return <ReplayPage id={part(m, 1)} />;
  if ((m = path.match(/^\/ladder\/([^/]+)\/([^/]+)\/?$/))) return <PlayerPage pool={part(m, 1)} name={part(m, 2)} />;
  if (/^\/ladder\/?$/.test(path)) return <LadderPage />;
  if (/^\/games\/?$/.test(path)) return <GamesPage />;
  return <LobbyPage />;
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
