/**
 * Characters no name or email address may hold: C0 controls (NUL, tab, newline, escape …),
 * DEL and C1 controls, and the bidirectional embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) that make text display in another order than it is stored
 * ("Trojan source"): a name shown as "Bob" that reads otherwise, a spoofed email.
 */
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

export function hasUnsafeCharacters(value: string): boolean {
  return UNSAFE_TEXT.test(value);
}

/** The message for a field that holds one of them. */
export const unsafeTextMessage = (label: string) => `${label} cannot contain control characters or text direction overrides`;
