/** `animgraph schema` and `animgraph docs`: the asset format's JSON Schema and the node reference. */
import { parseOptions, UsageError } from './common.ts';
import { writeOutputFile } from './output-file.ts';
import type { Io } from './io.ts';

export async function schemaCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, { out: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('takes no positional arguments');
  const { graphJsonSchema } = await import('../editor-meta/schema.ts');
  const text = `${JSON.stringify(graphJsonSchema(), null, 2)}\n`;
  if (values.out) {
    const out = values.out as string;
    writeOutputFile(out, text);
    io.out(`wrote ${values.out}\n`);
  } else io.out(text);
  return 0;
}

export async function docsCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, { out: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('takes no positional arguments');
  const { nodeReferenceMarkdown } = await import('../editor-meta/docs.ts');
  const text = nodeReferenceMarkdown();
  if (values.out) {
    const out = values.out as string;
    writeOutputFile(out, text);
    io.out(`wrote ${values.out}\n`);
  } else io.out(text);
  return 0;
}
