// Entry of the editor bundle (platform/static/vendor/codemirror/gridstride-editor.js).
// It exposes one global, GridstrideEditor.create(parent, options), so the site's own scripts
// stay plain, unbundled JavaScript.
import { basicSetup } from "codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { Compartment, EditorState, Prec } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { HighlightStyle, defaultHighlightStyle, indentUnit, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { python } from "@codemirror/lang-python";
import { cpp } from "@codemirror/lang-cpp";
import { oneDark } from "@codemirror/theme-one-dark";
import { vim } from "@replit/codemirror-vim";

const SYNTAX = { cuda: () => cpp(), triton: () => python(), pytorch: () => python(), cupy: () => python() };

function syntaxFor(language) {
  return (SYNTAX[language] || SYNTAX.triton)();
}

// One Dark's comment grey and coral fall under 4.5:1 on its background (and its active line):
// lighter shades of the same hues keep the theme and reach WCAG AA.
const readableDark = HighlightStyle.define([
  { tag: [tags.meta, tags.comment], color: "#a0a8b7" },
  { tag: [tags.name, tags.deleted, tags.character, tags.propertyName, tags.macroName], color: "#ef8f97" },
  { tag: tags.heading, fontWeight: "bold", color: "#ef8f97" },
  { tag: [tags.keyword], color: "#d291e4" },
]);

// The default light style has three colours under 4.5:1 on the active line's tint (#085 green,
// #e40 orange, #f00 red): darker shades of the same hues reach AA.
const DARKER = { "#085": "#006b44", "#e40": "#b03000", "#f00": "#c00000" };
const readableLight = HighlightStyle.define(
  defaultHighlightStyle.specs.map((spec) => (DARKER[spec.color] ? { ...spec, color: DARKER[spec.color] } : spec)),
);

function create(parent, options = {}) {
  const syntax = new Compartment();
  const theme = new Compartment();
  const keys = new Compartment();
  const dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  const themeFor = () =>
    dark && dark.matches ? [oneDark, Prec.high(syntaxHighlighting(readableDark))] : syntaxHighlighting(readableLight);
  const shortcuts = Prec.highest(
    keymap.of([
      { key: "Mod-Enter", run: () => { options.onRun && options.onRun(); return true; } },
      { key: "Mod-Shift-Enter", run: () => { options.onSubmit && options.onSubmit(); return true; } },
    ]),
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: options.doc || "",
      extensions: [
        keys.of(options.vim ? vim() : []),
        shortcuts,
        basicSetup,
        keymap.of([indentWithTab]),
        indentUnit.of("    "),
        EditorState.tabSize.of(4),
        syntax.of(syntaxFor(options.language)),
        theme.of(themeFor()),
        EditorView.contentAttributes.of({ "aria-label": options.label || "Code editor" }),
        // A code listing (the problem page's ladder): highlighted and selectable, never edited.
        options.readOnly ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : [],
        EditorView.updateListener.of((update) => {
          if (update.docChanged && options.onChange) options.onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  if (dark && dark.addEventListener) {
    dark.addEventListener("change", () => view.dispatch({ effects: theme.reconfigure(themeFor()) }));
  }
  return {
    view,
    getValue: () => view.state.doc.toString(),
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setLanguage(language) {
      view.dispatch({ effects: syntax.reconfigure(syntaxFor(language)) });
    },
    setVim(on) {
      view.dispatch({ effects: keys.reconfigure(on ? vim() : []) });
    },
    goToLine(number) {
      const line = view.state.doc.line(Math.max(1, Math.min(number, view.state.doc.lines)));
      view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      view.focus();
    },
    focus: () => view.focus(),
  };
}

window.GridstrideEditor = { create };
