// Builds the vendored bundles into ../static/vendor/ (committed; see package.json).
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";

const out = "../static/vendor";

await build({
  entryPoints: ["editor.mjs"],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  outfile: `${out}/codemirror/gridstride-editor.js`,
});
// One license file covering everything bundled (all MIT).
const licenses = [
  "codemirror", "@codemirror/view", "@codemirror/state", "@codemirror/commands",
  "@codemirror/language", "@codemirror/lang-python", "@codemirror/lang-cpp",
  "@codemirror/theme-one-dark", "@codemirror/autocomplete", "@codemirror/lint", "@codemirror/search",
  "@lezer/common", "@lezer/highlight", "@lezer/lr", "@lezer/python", "@lezer/cpp",
  "@replit/codemirror-vim", "style-mod", "w3c-keyname", "crelt",
];
let text = "Third-party code bundled into gridstride-editor.js, with its licenses.\n";
for (const name of licenses) {
  const pkg = JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8"));
  const file = readdirSync(`node_modules/${name}`).find((f) => /^licen[sc]e/i.test(f));
  text += `\n==== ${name} ${pkg.version} (${pkg.license}) ====\n`;
  text += file ? readFileSync(`node_modules/${name}/${file}`, "utf8") : "(no license file in the package)\n";
}
writeFileSync(`${out}/codemirror/LICENSES.txt`, text);

// KaTeX: the minified script, auto-render, and the CSS with only the woff2 fonts.
const katex = "node_modules/katex/dist";
mkdirSync(`${out}/katex/fonts`, { recursive: true });
copyFileSync(`${katex}/katex.min.js`, `${out}/katex/katex.min.js`);
copyFileSync(`${katex}/contrib/auto-render.min.js`, `${out}/katex/auto-render.min.js`);
copyFileSync("node_modules/katex/LICENSE", `${out}/katex/LICENSE`);
const css = readFileSync(`${katex}/katex.min.css`, "utf8").replace(
  /,url\(fonts\/[^)]+\.woff\) format\("woff"\),url\(fonts\/[^)]+\.ttf\) format\("truetype"\)/g,
  "",
);
writeFileSync(`${out}/katex/katex.min.css`, css);
for (const font of readdirSync(`${katex}/fonts`).filter((f) => f.endsWith(".woff2"))) {
  copyFileSync(`${katex}/fonts/${font}`, `${out}/katex/fonts/${font}`);
}
console.log("built", out);
