/**
 * Secret redaction for everything headed to chat: command output, commands, model
 * replies. Both bots and the Worker run it, so a secret printed by `env` or `cat .env`
 * never reaches a channel where everyone can read it.
 *
 * Every pattern is written to run in linear time on megabytes of output: each one
 * starts only at the beginning of a run of token characters (a lookbehind), and no
 * quantified group can match the same text two ways. Multi-line private keys are
 * found with indexOf rather than a lazy `[\s\S]*?`, which would rescan to the end
 * of the text once per unterminated BEGIN line.
 */

import { redactSecretVariants } from "./secret-variants.ts";
import { redactAcrossBreaks, type Rule } from "./split-tokens.ts";

export const REDACTED = "[redacted]";

/** Literal secrets shorter than this are ignored: redacting "abc" would shred normal text. */
export const EXTRA_SECRET_MIN_CHARS = 8;

const keepPrefix = (_m: string, prefix: string) => `${prefix}${REDACTED}`;

/** Values that are references or placeholders, not secrets; redacting them only hides useful text. */
const NOT_A_SECRET = /^(?:\$|%|process\.env\b|os\.(?:environ|getenv)\b|<[^>]*>$|\*+$|=|(?:true|false|null|none|nil|undefined)$)/i;

const isSkippable = (value: string) => value === "" || NOT_A_SECRET.test(value) || value.endsWith(REDACTED);

const CODE_WORDS =
  /^(?:await|new|this|self|typeof|function|async|lambda|yield|require|import|string|number|boolean|bigint|any|unknown|never|object|void|str|int|bytes|bool|dict|list|optional)$/i;

/**
 * Duet shows source code all day, where `token: string`, `password = hash(pw)` and
 * `secret: config.secret` are not secrets. Only checked for spaced `=` and `:`
 * assignments; a tight `NAME=value` (env files, `env`, CLI flags) is always redacted.
 */
function looksLikeCode(value: string, name: string): boolean {
  let end = value.length; // not /[,;]+$/: that rescans a long run of commas from each one
  while (end > 0 && (value[end - 1] === "," || value[end - 1] === ";")) end--;
  const v = value.slice(0, end);
  if (CODE_WORDS.test(v)) return true;
  if (v.toLowerCase() === name.split(/[._-]/).pop()!.toLowerCase()) return true; // token = token
  // Member access (config.secret, self._password), but only where code is sure: a YAML
  // value "abc.def" has no trailing comma and no well-known receiver, so it stays redacted.
  const member = /^([A-Za-z_$][A-Za-z_$]*)(?:\.[A-Za-z_$][\w$]*)+$/.exec(v);
  if (member && (v !== value || /^(?:this|self|cls|config|settings|options|opts|props|ctx|req|request|args|params|env|form)$/.test(member[1]))) return true;
  return /^[A-Za-z_$][\w$.]*(?:\(.*\)|<.*>)$/.test(v); // getToken(), z.string().min(8), Option<String>
}

/** `*KEY` names count only as `_KEY`/`-KEY`/`.KEY`, camelCase `apiKey`, or a known compound; never `monkey` or a bare `key`. */
function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  if (!lower.endsWith("key")) return true; // token, secret, password, passwd, passphrase, credential(s)
  if (/(?:public|primary|foreign|sort|partition|range|cache|idempotency|hash)[_.-]?key$/.test(lower)) return false;
  if (/(?:api|access|private|secret|signing|master|license)key$/.test(lower)) return true;
  const before = name[name.length - 4];
  if (before === undefined) return false;
  if (before === "_" || before === "-" || before === ".") return true;
  return /[a-z0-9]/.test(before) && name[name.length - 3] === "K";
}

/** A Discord token's first part is the bot's user id (a snowflake: 17-20 digits) in base64url. */
function isSnowflakeBase64(part: string): boolean {
  try {
    const b64 = part.replace(/-/g, "+").replace(/_/g, "/");
    const decoded = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    return /^[0-9]{17,20}$/.test(decoded);
  } catch {
    return false;
  }
}

/**
 * Tokens of other services known by their shape, also found broken over lines
 * (split-tokens.ts). Each starts at a fixed prefix, so taking line breaks out
 * of a token never makes one of ordinary text.
 */
const TOKEN_SHAPES: Rule[] = [
  // Slack tokens: bot, user, app-level, legacy, refresh (xoxe-), rotated (xoxe.xoxp-).
  { re: /(?<![A-Za-z0-9])(xoxe\.xox[bp]-|xox[abeoprs]-|xapp-)[A-Za-z0-9-]{10,}/g, replace: keepPrefix },
  // GitHub personal, OAuth, user-to-server, server-to-server, refresh and fine-grained tokens.
  { re: /(?<![A-Za-z0-9_])(gh[pousr]_)[A-Za-z0-9]{30,}/g, replace: keepPrefix },
  { re: /(?<![A-Za-z0-9_])(github_pat_)[A-Za-z0-9_]{22,}/g, replace: keepPrefix },
  // AWS access key ids (long-lived AKIA, temporary ASIA): exactly 16 more characters.
  { re: /(?<![A-Za-z0-9])(AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, replace: keepPrefix },
  // OpenAI-style keys (sk-…, sk-proj-…, Anthropic's sk-ant-…); 20+ characters so "task-sk-1" stays.
  { re: /(?<![A-Za-z0-9_-])(sk-)[A-Za-z0-9_-]{20,}/g, replace: keepPrefix },
  // Discord bot tokens: <base64 user id>.<timestamp>.<hmac>; the id check keeps other dotted base64 alone.
  {
    re: /(?<![A-Za-z0-9_-])([MNO][A-Za-z0-9_-]{22,27})\.[A-Za-z0-9_-]{5,7}\.[A-Za-z0-9_-]{27,}/g,
    replace: (m, id: string) => (isSnowflakeBase64(id) ? REDACTED : m),
  },
  // An AWS secret access key after its name: 40 characters of base64.
  {
    re: /(\b(?:aws_secret_access_key|SecretAccessKey)["']?[ \t]*[=:][ \t]*["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi,
    replace: keepPrefix,
  },
];

const RULES: Rule[] = [
  // Credentials inside URLs: postgres://user:pass@host, https://x-access-token:ghs_…@github.com
  {
    re: /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@]*:)([^\s/@]+)@/g,
    replace: (m, prefix: string, pass: string) => (isSkippable(pass) ? m : `${prefix}${REDACTED}@`),
  },
  // Slack incoming webhooks: the whole path is the secret.
  {
    re: /(https?:\/\/hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/)[A-Za-z0-9_/-]+/g,
    replace: keepPrefix,
  },
  ...TOKEN_SHAPES,
  // Other providers' keys that show up bare in logs and config dumps, each by its fixed prefix and length:
  // Google API keys, GitLab personal/deploy/runner tokens, npm tokens, Hugging Face tokens, Stripe keys.
  { re: /(?<![A-Za-z0-9_-])(AIza)[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, replace: keepPrefix },
  { re: /(?<![A-Za-z0-9_-])(gl(?:pat|dt|rt|ptt)-)[A-Za-z0-9_-]{20,}/g, replace: keepPrefix },
  { re: /(?<![A-Za-z0-9_])(npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, replace: keepPrefix },
  { re: /(?<![A-Za-z0-9_])(hf_)[A-Za-z]{34}(?![A-Za-z0-9_])/g, replace: keepPrefix },
  { re: /(?<![A-Za-z0-9_])((?:sk|rk)_(?:live|test)_)[A-Za-z0-9]{24,}/g, replace: keepPrefix },
  // JSON Web Tokens: header and payload are base64 JSON, so both start with "eyJ".
  { re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g, replace: () => REDACTED },
  // Authorization headers: whatever follows the scheme is a credential, however short.
  {
    re: /(\bAuthorization["']?[ \t]*[:=][ \t]*["']?)((?:Bearer|Basic|Bot|Token|Digest)[ \t]+)?([^\s"']+)/gi,
    replace: (m, head: string, scheme: string | undefined, value: string) => {
      if (isSkippable(value)) return m;
      if (!scheme && /^(?:Bearer|Basic|Bot|Token|Digest)$/i.test(value)) return m; // "Authorization: Bearer" with no value
      return `${head}${scheme ?? ""}${REDACTED}`;
    },
  },
  // "Bearer <token>" elsewhere (other headers, logs): only token-like values, so prose such as
  // "Bearer authentication" stays readable.
  {
    re: /\b(Bearer[ \t]+)([A-Za-z0-9._~+/-]+=*)/gi,
    replace: (m, head: string, value: string) =>
      (value.length >= 8 && /[0-9]/.test(value)) || value.length >= 24 ? `${head}${REDACTED}` : m,
  },
  // Env-style and config assignments: FOO_TOKEN=…, CLOUDFLARE_API_TOKEN: …, "password": "…",
  // aws_secret_access_key = …, X-Api-Key: …, --password=…
  {
    re: /(?<![A-Za-z0-9_./-])([A-Za-z0-9_.-]*?(?:token|secret|password|passwd|passphrase|credentials?|key))(["']?[ \t]*[=:][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s"'&]+)/gi,
    replace: (m, name: string, sep: string, value: string) => {
      if (!isSecretName(name)) return m;
      const quote = value[0] === '"' || value[0] === "'" ? value[0] : "";
      const inner = quote ? value.slice(1, -1) : value;
      if (isSkippable(inner)) return m;
      if (!quote && sep !== "=" && looksLikeCode(inner, name)) return m;
      return `${name}${sep}${quote}${REDACTED}${quote}`;
    },
  },
];

/**
 * Where any rule above could match, at least one of these occurs: each rule's
 * own literal part (its prefix, `://`, the header name, the secret-ish name
 * before `=`/`:`). Most text has none, and one pass of this costs less than
 * the rules' passes, so such text skips them. Case-insensitive, so it finds a
 * superset; a rule added above needs its literal added here.
 */
const MAY_HOLD_SECRET =
  /:\/\/|aws|amazon|xox|xapp-|gh[pousr]_|github_pat_|AKIA|ASIA|sk-|AIza|gl(?:pat|dt|rt|ptt)-|npm_|hf_|[sr]k_(?:live|test)_|eyJ|[MNO][A-Za-z0-9_-]{22,27}\.|authorization|bearer|(?:token|secret|password|passwd|passphrase|credentials?|key)["']?[ \t]*[=:]/i;

const PEM_BEGIN = /-----BEGIN ([A-Z0-9 ]{0,40}?)PRIVATE KEY( BLOCK)?-----/g;
/** A BEGIN line's END line: the same label. */
const pemEndLine = (begin: RegExpExecArray) => `-----END ${begin[1]}PRIVATE KEY${begin[2] ?? ""}-----`;
/** A line of a PEM body: base64, or a header such as `Proc-Type: 4,ENCRYPTED`. */
const PEM_BODY_LINE = /^[ \t]*(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment):.*)[ \t]*\r?$/;

/**
 * Replaces each private key body with the marker, keeping the BEGIN/END lines so a
 * reader sees what was there. Without an END line (output cut mid-key) the rest of the
 * BEGIN line and the following base64-looking lines are hidden.
 */
function redactPrivateKeys(text: string): string {
  if (!text.includes("PRIVATE KEY")) return text;
  const lastEnd = new Map<string, number>();
  let out = "";
  let from = 0;
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m; m = PEM_BEGIN.exec(text)) {
    const bodyStart = m.index + m[0].length;
    const endLine = pemEndLine(m);
    // lastIndexOf once per label: repeated BEGINs without an END must not rescan the text each time.
    if (!lastEnd.has(endLine)) lastEnd.set(endLine, text.lastIndexOf(endLine));
    const endAt = lastEnd.get(endLine)! >= bodyStart ? text.indexOf(endLine, bodyStart) : -1;
    out += text.slice(from, bodyStart);
    if (endAt >= 0) {
      out += `\n${REDACTED}\n${endLine}`;
      from = endAt + endLine.length;
    } else {
      // `cut` ends the hidden part: the rest of the BEGIN line, then body lines. One blank
      // line may sit inside (encrypted PEM puts one after its headers); two end the body.
      let cut = text.indexOf("\n", bodyStart);
      let blank = false;
      for (let at = cut; at >= 0; ) {
        const next = text.indexOf("\n", at + 1);
        const line = text.slice(at + 1, next < 0 ? text.length : next);
        if (line.trim() === "") {
          if (blank) break;
          blank = true;
        } else if (PEM_BODY_LINE.test(line)) {
          blank = false;
          cut = next;
        } else break;
        at = next;
      }
      out += ` ${REDACTED}`;
      from = cut < 0 ? text.length : cut;
    }
    PEM_BEGIN.lastIndex = from;
  }
  return out + text.slice(from);
}

/**
 * Where the first private key block without its END line starts, reading blocks
 * as redactPrivateKeys does; -1 when none is open. Text after such a BEGIN line
 * redacts differently once its END arrives, so a stream must hold it.
 */
export function openPrivateKeyAt(text: string): number {
  if (!text.includes("PRIVATE KEY")) return -1;
  PEM_BEGIN.lastIndex = 0;
  for (let m = PEM_BEGIN.exec(text); m; m = PEM_BEGIN.exec(text)) {
    const endLine = pemEndLine(m);
    const endAt = text.indexOf(endLine, m.index + m[0].length);
    if (endAt < 0) return m.index;
    PEM_BEGIN.lastIndex = endAt + endLine.length;
  }
  return -1;
}

function redactLiterals(text: string, extraSecrets: readonly string[]): string {
  const secrets = [...new Set(extraSecrets.map((s) => s.trim()))]
    .filter((s) => s.length >= EXTRA_SECRET_MIN_CHARS)
    .sort((a, b) => b.length - a.length); // a secret that contains another goes first
  for (const secret of secrets) {
    if (text.includes(secret)) text = text.split(secret).join(REDACTED);
  }
  // Known exactly, so also caught split over lines and base64-encoded.
  return redactSecretVariants(text, secrets, REDACTED);
}

/** Text that speaks of AWS: there a bare 40-character key of mixed case and digits is taken for a secret access key. */
const AWS_CONTEXT = /aws|amazon|AKIA|ASIA/i;
const BARE_AWS_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

/** A secret access key pasted on its own ("my key is wJalr…"), when the text is about AWS. */
function redactBareAwsSecrets(text: string): string {
  if (!AWS_CONTEXT.test(text)) return text;
  return text.replace(BARE_AWS_SECRET, (m) => (/[A-Z]/.test(m) && /[a-z]/.test(m) && /[0-9]/.test(m) ? REDACTED : m));
}

/**
 * Replaces secrets in `text` with `[redacted]` (keeping a recognisable prefix such as
 * `xoxb-[redacted]`). `extraSecrets` are literal values to hide wherever they appear
 * (the Worker passes its own); values shorter than 8 characters are ignored.
 */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  if (!text) return text;
  let out = redactLiterals(text, extraSecrets);
  out = redactPrivateKeys(out);
  out = redactAcrossBreaks(out, TOKEN_SHAPES);
  if (!MAY_HOLD_SECRET.test(out)) return out;
  for (const rule of RULES) out = out.replace(rule.re, rule.replace as (m: string, ...a: any[]) => string);
  return redactBareAwsSecrets(out);
}
