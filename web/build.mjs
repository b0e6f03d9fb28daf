// Builds the page into dist/ (npm run build): one script and one style sheet, minified, each
// with a gzip copy the server sends to browsers that take it. dist/ is committed: the server
// embeds it, so building the server needs no Node. .ci/run rebuilds it and compares.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

// DUDO_WEB_OUT: somewhere else (scripts/web-build.sh --check builds there and compares).
const out = process.env.DUDO_WEB_OUT ?? "dist";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { app: "src/main.tsx" },
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  jsx: "automatic",
  jsxImportSource: "preact",
  outdir: out,
  legalComments: "none",
  // The worked example's record (src/example/*.replay), bundled as bytes.
  loader: { ".replay": "binary" },
  logLevel: "warning",
});
copyFileSync("src/style.css", `${out}/app.css`);
copyFileSync("index.html", `${out}/index.html`);
for (const name of ["app.js", "app.css", "index.html"]) {
  // No time in the header and the best level: the same input makes the same bytes.
  writeFileSync(`${out}/${name}.gz`, gzipSync(readFileSync(`${out}/${name}`), { level: 9 }));
}
