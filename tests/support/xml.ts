/**
 * A strict little XML parser for the tests: enough of XML 1.0 to reject what is not well-formed
 * (unclosed or crossed tags, unquoted or duplicate attributes, a bare `&` or `<`, unknown
 * entities, text outside the root) and to read an SVG back as a tree. No DTDs, no namespaces.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The element's own character data (entities decoded), children's text excluded. */
  text: string;
}

export class XmlError extends Error {}

const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;

function decode(raw: string, at: number): string {
  if (raw.includes('<')) throw new XmlError(`'<' in character data or an attribute value near offset ${at}`);
  return raw.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlError(`bare '&' near offset ${at}`);
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (ref in named) return named[ref];
    const m = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(ref);
    if (!m) throw new XmlError(`unknown entity '&${ref};' near offset ${at}`);
    return String.fromCodePoint(m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2]));
  });
}

export function parseXml(source: string): XmlElement {
  let i = 0;
  const skipMisc = () => {
    for (;;) {
      const ws = /\s*/y; ws.lastIndex = i; ws.exec(source); i = ws.lastIndex;
      if (source.startsWith('<?', i)) {
        const end = source.indexOf('?>', i);
        if (end < 0) throw new XmlError('unterminated processing instruction');
        i = end + 2;
      } else if (source.startsWith('<!--', i)) {
        const end = source.indexOf('-->', i);
        if (end < 0) throw new XmlError('unterminated comment');
        i = end + 3;
      } else return;
    }
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(source);
    if (!m) throw new XmlError(`expected a name at offset ${i}`);
    i = NAME.lastIndex;
    return m[0];
  };
  const element = (): XmlElement => {
    if (source[i] !== '<') throw new XmlError(`expected '<' at offset ${i}`);
    i++;
    const el: XmlElement = { name: name(), attributes: {}, children: [], text: '' };
    for (;;) {
      const ws = /\s*/y; ws.lastIndex = i; const spaced = ws.exec(source)![0].length > 0; i = ws.lastIndex;
      if (source.startsWith('/>', i)) { i += 2; return el; }
      if (source[i] === '>') { i++; break; }
      if (!spaced) throw new XmlError(`expected whitespace before an attribute at offset ${i}`);
      const attr = name();
      if (attr in el.attributes) throw new XmlError(`duplicate attribute '${attr}' on <${el.name}>`);
      if (source[i] !== '=') throw new XmlError(`expected '=' after attribute '${attr}' at offset ${i}`);
      const quote = source[i + 1];
      if (quote !== '"' && quote !== "'") throw new XmlError(`unquoted attribute '${attr}' at offset ${i}`);
      const end = source.indexOf(quote, i + 2);
      if (end < 0) throw new XmlError(`unterminated attribute '${attr}'`);
      el.attributes[attr] = decode(source.slice(i + 2, end), i);
      i = end + 1;
    }
    for (;;) {
      const lt = source.indexOf('<', i);
      if (lt < 0) throw new XmlError(`<${el.name}> is not closed`);
      el.text += decode(source.slice(i, lt), i);
      i = lt;
      if (source.startsWith('</', i)) {
        i += 2;
        const closing = name();
        if (closing !== el.name) throw new XmlError(`</${closing}> closes <${el.name}> at offset ${i}`);
        const ws = /\s*>/y; ws.lastIndex = i;
        if (!ws.exec(source)) throw new XmlError(`expected '>' at offset ${i}`);
        i = ws.lastIndex;
        return el;
      }
      if (source.startsWith('<!--', i)) {
        const end = source.indexOf('-->', i);
        if (end < 0) throw new XmlError('unterminated comment');
        i = end + 3;
      } else if (source.startsWith('<![CDATA[', i)) {
        const end = source.indexOf(']]>', i);
        if (end < 0) throw new XmlError('unterminated CDATA section');
        el.text += source.slice(i + 9, end);
        i = end + 3;
      } else el.children.push(element());
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (i !== source.length) throw new XmlError(`content after the root element at offset ${i}`);
  return root;
}

/** Every element of the tree, depth first, the root included. */
export function allElements(root: XmlElement): XmlElement[] {
  const out: XmlElement[] = [root];
  for (const child of root.children) out.push(...allElements(child));
  return out;
}
