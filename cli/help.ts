/**
 * One command's part of the usage text (`animgraph view --help`, `animgraph help view`): its usage
 * lines and its paragraph, read from the full usage so the two never disagree. A command's usage
 * lines start `  animgraph NAME` (continuations are indented further), its paragraph `NAME  ` at
 * the start of a line (continuations indented). Undefined for a name the usage does not describe.
 */
export function commandHelp(usage: string, command: string): string | undefined {
  if (!/^[a-z][a-z-]*$/.test(command)) return undefined;
  const lines = usage.split('\n');
  const synopsis: string[] = [];
  const paragraph: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith(`  animgraph ${command} `) || lines[i] === `  animgraph ${command}`) {
      synopsis.push(lines[i]);
      while (i + 1 < lines.length && /^ {4,}\S/.test(lines[i + 1]) && !lines[i + 1].startsWith('  animgraph ')) synopsis.push(lines[++i]);
    } else if (new RegExp(`^${command} +\\S`).test(lines[i])) {
      paragraph.push(lines[i]);
      while (i + 1 < lines.length && /^ {2,}\S/.test(lines[i + 1]) && !lines[i + 1].startsWith('  animgraph ')) paragraph.push(lines[++i]);
    }
  }
  if (synopsis.length === 0) return undefined;
  // The closing notes: the ranges of --frames and --fps for the commands that take them, and the exit codes.
  const notes = lines.findIndex((l) => l.startsWith('--frames is'));
  const exits = lines.findIndex((l) => l.startsWith('Exit codes:'));
  const from = notes >= 0 && synopsis.some((l) => l.includes('--frames')) ? notes : exits;
  const footer = lines.slice(from).join('\n').trimEnd();
  return `Usage:\n${synopsis.join('\n')}\n\n${paragraph.join('\n')}${paragraph.length > 0 ? '\n\n' : ''}${footer}\n`;
}
