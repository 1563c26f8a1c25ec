/** What a compiled tool carries besides its describe document: the file each flag prints. */
export const DOCUMENT_FLAGS = { "--skill": "SKILL.md", "--spec": "spec.yaml" } as const;
export type DocumentFlag = keyof typeof DOCUMENT_FLAGS;

/**
 * The tool's `--help` text, made at build from its describe document: a
 * binary prints it as built, without parsing the document or loading the
 * code that renders it.
 */
export const HELP_DOCUMENT = "help.txt";
