/**
 * A manifest or story file that cannot be used: unreadable, malformed YAML, a document without
 * kind or name, an unknown step. The message is one paragraph naming the file, the document (or
 * step) and the line, what is wrong and how to fix it; the CLI prints it and exits 2. A
 * `TypeError`, as every unusable option of `check` is.
 * @public
 */
export class StoryFileError extends TypeError {
  /** The file, as the user named it (relative paths stay relative). */
  readonly file: string;
  /** 1-based document of a multi-document file, when the problem is in one. */
  readonly document: number | undefined;
  /** 1-based line, when known. */
  readonly line: number | undefined;
  constructor(message: string, file: string, where: { document?: number; line?: number } = {}) {
    super(message);
    this.name = 'StoryFileError';
    this.file = file;
    this.document = where.document;
    this.line = where.line;
  }
}

/** `file, document 2 (line 14)` / `file (line 3)` / `file`. @internal */
export function place(file: string, where: { document?: number | undefined; step?: number | undefined; line?: number | undefined }): string {
  const parts: string[] = [];
  if (where.document !== undefined) parts.push(`document ${where.document}`);
  if (where.step !== undefined) parts.push(`step ${where.step}`);
  const line = where.line !== undefined ? ` (line ${where.line})` : '';
  return parts.length > 0 ? `${file}, ${parts.join(', ')}${line}` : `${file}${line}`;
}
