// What a lookup tool's result says, read from the text the planner sees, and said back in plain
// words: "yyds 是“永远的神”的意思", never the JSON the tool returned.
import type { Dice } from "./dice";
import type { Lang } from "./text";

export type Finding =
  | { kind: "jargon"; known: { word: string; meaning: string }[]; unknown: string[] }
  | { kind: "memory"; items: string[] }
  | { kind: "person"; name: string; summary: string; traits: string[]; facts: string[] }
  | { kind: "person_missing"; name: string }
  | { kind: "tools"; names: string[] }
  | { kind: "forward"; lines: { sender: string; text: string }[] }
  | { kind: "text"; text: string };

const MAX_ITEMS = 3;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const str = (v: unknown): string => (typeof v === "string" ? v.trim() : "");

/** query_jargon: `{results:[{word, found, matches:[{word, meaning}]}]}`. */
function jargonOf(json: unknown): Finding | null {
  if (!isRecord(json) || !Array.isArray(json.results)) return null;
  const known: { word: string; meaning: string }[] = [];
  const unknown: string[] = [];
  for (const r of json.results) {
    if (!isRecord(r)) continue;
    const word = str(r.word);
    const matches = Array.isArray(r.matches) ? r.matches.filter(isRecord) : [];
    // An exact match first, else the first fuzzy one.
    const best = matches.find((m) => str(m.word).toLowerCase() === word.toLowerCase()) ?? matches[0];
    if (best && str(best.meaning)) known.push({ word: word || str(best.word), meaning: str(best.meaning) });
    else if (word) unknown.push(word);
  }
  return { kind: "jargon", known, unknown };
}

/** Every string leaf of a JSON value, for results of tools this model does not know. */
function stringLeaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string" && v.trim()) out.push(v.trim());
  else if (Array.isArray(v)) v.forEach((x) => stringLeaves(x, out));
  else if (isRecord(v)) Object.values(v).forEach((x) => stringLeaves(x, out));
  return out;
}

const MEMORY_NONE = /没有找到相关记忆|no (?:related |matching )?memor/i;
// "1. [2026-01-01 12:00]（关于 Alice） content" (search) or "  - ★ [time] content" (episode).
const MEMORY_ITEM = /^\s*(?:\d+\.|-)\s*(?:★\s*)?\[[^\]]*\]\s*(?:[（(](?:关于|about)\s*[^）)]*[）)])?\s*(.+)$/i;

function memoryOf(text: string): Finding {
  if (MEMORY_NONE.test(text)) return { kind: "memory", items: [] };
  const items = text
    .split("\n")
    .map((l) => MEMORY_ITEM.exec(l)?.[1]?.trim() ?? "")
    .filter(Boolean);
  return { kind: "memory", items: [...new Set(items)].slice(0, MAX_ITEMS) };
}

const PERSON_MISSING = /没有找到\s*(.+?)\s*的人物画像|no (?:person )?profile (?:found )?for\s+(.+?)\.?$/i;

function listAfter(text: string, heading: RegExp): string[] {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return [];
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    const m = /^\s*-\s*(.+)$/.exec(l);
    if (!m) break;
    out.push(m[1].trim());
  }
  return out;
}

function personOf(text: string): Finding {
  const missing = PERSON_MISSING.exec(text);
  if (missing) return { kind: "person_missing", name: (missing[1] ?? missing[2] ?? "").trim() };
  const name = /(?:人物|person)[:：]\s*([^（(\n]+)/i.exec(text)?.[1]?.trim() ?? "";
  const summary = /(?:概要|summary)[:：]\s*(.+)/i.exec(text)?.[1]?.trim() ?? "";
  return {
    kind: "person",
    name,
    summary: /^(暂无|none|n\/a)$/i.test(summary) ? "" : summary,
    traits: listAfter(text, /^(?:特征|traits)[:：]/i).slice(0, MAX_ITEMS),
    facts: listAfter(text, /^(?:已知事实|facts)[:：]/i).slice(0, MAX_ITEMS),
  };
}

function toolsOf(text: string): Finding {
  if (/没有匹配|no deferred tool matched/i.test(text)) return { kind: "tools", names: [] };
  const names = text
    .split("\n")
    .map((l) => /^\s*-\s*(\S+)\s*$/.exec(l)?.[1] ?? "")
    .filter(Boolean);
  return { kind: "tools", names };
}

function forwardOf(text: string): Finding {
  const lines = text
    .split("\n")
    .map((l) => /^([^：:]{1,40})[：:]\s*(.+)$/.exec(l.trim()))
    .flatMap((m) => (m ? [{ sender: m[1].trim(), text: m[2].trim() }] : []));
  return lines.length > 0 ? { kind: "forward", lines: lines.slice(0, MAX_ITEMS) } : { kind: "text", text };
}

/** Reads one tool result; the tool name may be "" when the call is not in view. */
export function findingOf(toolName: string, text: string): Finding {
  const trimmed = text.trim();
  const json = parseJson(trimmed);
  const jargon = jargonOf(json);
  if (jargon) return jargon;
  if (json !== undefined && typeof json === "object" && json !== null) {
    return { kind: "text", text: stringLeaves(json).slice(0, MAX_ITEMS).join("; ") };
  }
  switch (toolName) {
    case "query_memory":
      return memoryOf(trimmed);
    case "query_person_profile":
      return personOf(trimmed);
    case "tool_search":
      return toolsOf(trimmed);
    case "view_complex_message":
      return forwardOf(trimmed);
    default:
      return { kind: "text", text: trimmed.replace(/\s+/g, " ") };
  }
}

type Phrases = Record<Lang, readonly string[]>;

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => vars[k] ?? "");
}

const JARGON_KNOWN: Phrases = {
  zh: ["{word} 是“{meaning}”的意思", "{word} 就是“{meaning}”", "{word} 一般指“{meaning}”"],
  en: ['"{word}" means "{meaning}"', '{word} is "{meaning}"', 'as far as I know, {word} means "{meaning}"'],
};
const JARGON_UNKNOWN: Phrases = {
  zh: ["{word} 这个词我还不认识", "我还不知道 {word} 是什么意思", "{word}？这个我没查到"],
  en: ["I don't know that one ({word})", "I don't know what {word} means yet", "no idea what {word} means, sorry"],
};
const MEMORY_FOUND: Phrases = {
  zh: ["我记得：{items}", "印象里是这样的：{items}", "我想起来了：{items}"],
  en: ["I remember: {items}", "from what I recall: {items}", "if I remember right: {items}"],
};
const MEMORY_NONE_SAY: Phrases = {
  zh: ["这件事我不记得了", "我这里没有相关的记忆", "这个我没什么印象"],
  en: ["I don't remember anything about that", "nothing about that in my memory", "that doesn't ring a bell"],
};
const PERSON_FOUND: Phrases = {
  zh: ["{name}呀，{about}", "说到{name}，{about}", "{name}的话，{about}"],
  en: ["{name}? {about}", "about {name}: {about}", "{name}, as far as I know: {about}"],
};
const PERSON_MISSING_SAY: Phrases = {
  zh: ["我还不太了解{name}", "关于{name}我知道的还不多", "{name}是谁我还不清楚"],
  en: [
    "I don't know much about {name} yet",
    "I don't really know {name} yet",
    "{name}? I haven't got to know them yet",
  ],
};
const TOOLS_FOUND: Phrases = {
  zh: ["我找到了可以用的工具：{names}", "有几个工具也许用得上：{names}"],
  en: ["I found tools that could help: {names}", "a few tools might help: {names}"],
};
const TOOLS_NONE: Phrases = {
  zh: ["我没找到能帮上忙的工具", "暂时没有合适的工具可以查"],
  en: ["I couldn't find a tool for that", "there is no tool I could use for that yet"],
};
const FORWARD: Phrases = {
  zh: ["转发的内容里，{lines}", "我看了转发：{lines}"],
  en: ["in the forwarded messages, {lines}", "I read the forward: {lines}"],
};

const SEP: Record<Lang, string> = { zh: "；", en: "; " };
const LIST: Record<Lang, string> = { zh: "、", en: ", " };

/** The finding as one or two plain sentences in `lang`, the wording picked by `dice`. */
export function sayFinding(f: Finding, lang: Lang, dice: Dice): string {
  const say = (p: Phrases, vars: Record<string, string>) => fill(dice.pick(p[lang]), vars);
  switch (f.kind) {
    case "jargon":
      return [
        ...f.known.map((k) => say(JARGON_KNOWN, k)),
        ...f.unknown.map((word) => say(JARGON_UNKNOWN, { word })),
      ].join(SEP[lang]);
    case "memory":
      return f.items.length > 0 ? say(MEMORY_FOUND, { items: f.items.join(SEP[lang]) }) : say(MEMORY_NONE_SAY, {});
    case "person": {
      const about = [f.summary, ...f.traits, ...f.facts].filter(Boolean).join(LIST[lang]);
      if (!about) return say(PERSON_MISSING_SAY, { name: f.name });
      return say(PERSON_FOUND, { name: f.name, about });
    }
    case "person_missing":
      return say(PERSON_MISSING_SAY, { name: f.name });
    case "tools":
      return f.names.length > 0 ? say(TOOLS_FOUND, { names: f.names.join(LIST[lang]) }) : say(TOOLS_NONE, {});
    case "forward": {
      const lines = f.lines.map((l) => (lang === "zh" ? `${l.sender}说“${l.text}”` : `${l.sender} said "${l.text}"`));
      return say(FORWARD, { lines: lines.join(LIST[lang]) });
    }
    case "text":
      return f.text;
  }
}
