// dudo's browser table: `/` is the lobby, `/t/CODE` a table (the link people share).
import { render } from "preact";
import { LobbyPage } from "./lobby";
import { TablePage } from "./table";

function App() {
  const table = location.pathname.match(/^\/t\/([^/]+)\/?$/);
  return table ? <TablePage code={decodeURIComponent(table[1])} /> : <LobbyPage />;
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
