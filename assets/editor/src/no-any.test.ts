// No `any` in the editor's sources: every shape comes from the generated schema, and what the
// schema cannot say is narrowed from `unknown`. The check parses each file with TypeScript and
// finds the `any` keyword wherever a type is written (annotations, `as any`, `<any>`, `any[]`,
// generics), including inside the htm templates' expressions. The generated schema is left out.
import ts from "typescript";
import { describe, expect, it } from "vitest";

const sources = import.meta.glob<string>(["./**/*.ts", "!./schema.d.ts"], { query: "?raw", import: "default", eager: true });

/** Where `text` writes the type `any`, as `file:line:column`. */
export function anyTypes(name: string, text: string): string[] {
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) {
      const { line, character } = file.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${name}:${line + 1}:${character + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("no any", () => {
  it("finds any written as a type, and not the word in text", () => {
    const typed = "let a: any; const b = c as any; const d = <any>e; let f: any[] = []; let g: Array<any>; const h = html`<p onClick=${(e: any) => e}>any</p>`;";
    expect(anyTypes("typed.ts", typed)).toHaveLength(6);
    const words = "// any comment\nconst s = 'any'; const t = `any ${1}`; const many = 1; /* any */";
    expect(anyTypes("words.ts", words)).toEqual([]);
  });

  it("reads every source file of the editor", () => {
    const names = Object.keys(sources);
    expect(names).toContain("./store.ts");
    expect(names).toContain("./editor.ts");
    expect(names).not.toContain("./schema.d.ts");
  });

  it("has no any in src", () => {
    const found = Object.entries(sources).flatMap(([name, text]) => anyTypes(name, text));
    expect(found).toEqual([]);
  });
});
