import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets } from "./redact.ts";

// Fixtures are assembled from pieces so that secret scanners (GitHub push protection)
// do not mistake these fake values for leaked ones.
const j = (...parts: string[]) => parts.join("");
const b64url = (s: string) => btoa(s).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

const SLACK_BOT = j("xoxb-", "1234567890", "-1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx");
const DISCORD = j(b64url("123456789012345678"), ".GaBcDe.", "Zx9_Qw-Er7TyUiOpAsDfGhJkLzXcVbNm12");
const GH_BODY = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
const AWS_SECRET = j("wJalrXUtnFEMI", "/K7MDENG/bPxRfiCYEXAMPLEKEY");
const PEM_BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nZ1BjP5CE/Wm/Rr500P3rK2Uf+Ab1=";

/** [description, input, secret values that must not survive, expected output (optional)] */
const TRUE_POSITIVES: Array<[string, string, string[], string?]> = [
  ["Slack bot token", `SLACK_BOT_TOKEN=${SLACK_BOT}`, ["1234567890-1234567890123"], "SLACK_BOT_TOKEN=xoxb-[redacted]"],
  ["Slack user token", j("token: xoxp-", "2222222222-3333333333-4444444444-0123456789abcdef0123456789abcdef"), ["0123456789abcdef0123"]],
  ["Slack app token", j("xapp-", "1-A0123456789-1234567890123-", "deadbeef".repeat(8)), ["deadbeefdeadbeef"], "xapp-[redacted]"],
  ["Slack refresh token", j("refresh xoxe-", "1-My0xLTIzNDU2Nzg5MC0xMjM0NTY3"), ["My0xLTIzNDU2Nzg5"], "refresh xoxe-[redacted]"],
  ["Slack legacy xoxa", j("xoxa-", "2-1234567890-abcdefghijkl"), ["abcdefghijkl"]],
  ["Slack legacy xoxs", j("xoxs-", "1234567890-0987654321-abcd"), ["0987654321"]],
  ["Slack rotated user token", j("xoxe.xoxp-", "1-Mi0yLTEyMzQ1Njc4OTAxMi0xMjM0"), ["Mi0yLTEyMzQ1"], "xoxe.xoxp-[redacted]"],
  ["Slack webhook", j("curl -X POST https://hooks.slack.com/services/", "T00000000/B11111111/", "XXXXXXXXXXXXXXXXXXXXXXXX", " -d @x"), ["T00000000", "XXXXXXXXXXXX"], "curl -X POST https://hooks.slack.com/services/[redacted] -d @x"],
  ["Discord bot token", `logged in with ${DISCORD}.`, [DISCORD.split(".")[2], DISCORD.split(".")[0]], "logged in with [redacted]."],
  ["Discord token as Authorization: Bot", `Authorization: Bot ${DISCORD}`, ["GaBcDe"], "Authorization: Bot [redacted]"],
  ...(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].map(
    (p): [string, string, string[], string] => [`GitHub ${p}`, `push with ${p}${GH_BODY} now`, [GH_BODY], `push with ${p}[redacted] now`],
  )),
  ["GitHub fine-grained PAT", j("github_pat_", "11ABCDEFG0123456789_", "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTU"), ["11ABCDEFG0123456789"], "github_pat_[redacted]"],
  ["GitHub token in a remote URL", j("https://x-access-token:ghs_", GH_BODY, "@github.com/o/r.git"), [GH_BODY]],
  ["AWS access key id", j("aws_access_key_id AKIA", "IOSFODNN7EXAMPLE"), ["IOSFODNN7EXAMPLE"], "aws_access_key_id AKIA[redacted]"],
  ["AWS temporary key id", j("ASIA", "Y34FZKBOKMUTVV7A,"), ["Y34FZKBOKMUTVV7A"], "ASIA[redacted],"],
  ["AWS secret (credentials file)", `[default]\naws_secret_access_key = ${AWS_SECRET}\n`, [AWS_SECRET], "[default]\naws_secret_access_key = [redacted]\n"],
  ["AWS secret (env)", `AWS_SECRET_ACCESS_KEY=${AWS_SECRET}`, [AWS_SECRET]],
  ["AWS secret (sts JSON)", `"SecretAccessKey": "${AWS_SECRET}",`, [AWS_SECRET], `"SecretAccessKey": "[redacted]",`],
  ["RSA private key", `key:\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----\nok`, ["MIIEpAIBAAKCAQEA", "Rr500P3rK2Uf"], "key:\n-----BEGIN RSA PRIVATE KEY-----\n[redacted]\n-----END RSA PRIVATE KEY-----\nok"],
  ["OpenSSH private key", `-----BEGIN OPENSSH PRIVATE KEY-----\n${PEM_BODY}\n-----END OPENSSH PRIVATE KEY-----`, ["MIIEpAIBAAKCAQEA"]],
  ["encrypted PEM with headers", `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,ABCDEF\n\n${PEM_BODY}\n-----END RSA PRIVATE KEY-----`, ["ABCDEF", "MIIEpAIBAAKCAQEA"]],
  ["private key cut off (no END)", `-----BEGIN EC PRIVATE KEY-----\n${PEM_BODY}\n... output truncated`, ["MIIEpAIBAAKCAQEA", "Rr500P3rK2Uf"], "-----BEGIN EC PRIVATE KEY----- [redacted]\n... output truncated"],
  ["JSON-escaped private key", `{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"}`, ["MIIEvQIBADANBgkq"]],
  ["Authorization: Bearer (curl)", `curl -H "Authorization: Bearer abc123" https://api`, ["abc123"], `curl -H "Authorization: Bearer [redacted]" https://api`],
  ["Authorization: Basic", "authorization: Basic dXNlcjpwYXNz", ["dXNlcjpwYXNz"]],
  ["Authorization in JSON", `{"Authorization":"Bearer tok"}`, ["tok"], `{"Authorization":"Bearer [redacted]"}`],
  ["Bearer in another header", "X-Upstream-Auth: Bearer 9f8e7d6c5b4a3210", ["9f8e7d6c5b4a3210"]],
  ["OpenAI key", j("OPENAI key sk-", "abcdefghijklmnopqrstuvwxyz0123456789"), ["abcdefghijklmnop"], "OPENAI key sk-[redacted]"],
  ["OpenAI project key", j("sk-proj-", "AbCdEf0123456789_-GhIjKlMnOpQr"), ["AbCdEf0123456789"]],
  ["Anthropic key", j("sk-ant-api03-", "AbCdEf0123456789GhIjKl"), ["AbCdEf0123456789"]],
  ["Google API key", j("key=AIza", "SyD-0123456789abcdefghijklmnopqrstu&x"), ["SyD-0123456789abcdef"], "key=AIza[redacted]&x"],
  ["GitLab personal token", j("glpat-", "xY12_abCDefGHij-KLmnOP"), ["xY12_abCDefGHij"], "glpat-[redacted]"],
  ["npm token in .npmrc", j("//registry.npmjs.org/:_authToken=npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"), ["a1B2c3D4e5F6g7H8"]],
  ["Hugging Face token", j("hf_", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"), ["AbCdEfGhIjKlMnOp"], "hf_[redacted]"],
  ["Stripe live key", j("stripe: sk_live_", "51AbCdEfGhIjKlMnOpQrStUv"), ["51AbCdEfGhIjKlMn"], "stripe: sk_live_[redacted]"],
  ["Cloudflare API token", "CLOUDFLARE_API_TOKEN=Yx7_Ab9cDe1fGh3iJk5lMn7oPq9rSt1uVw3xYz5A", ["Yx7_Ab9cDe1fGh3iJk5l"], "CLOUDFLARE_API_TOKEN=[redacted]"],
  ["Cloudflare key, export and quotes", `export CF_API_KEY="0123456789abcdef0123456789abcdef01234"`, ["0123456789abcdef"], `export CF_API_KEY="[redacted]"`],
  ["generic _TOKEN", "DUET_API_TOKEN=hunter2hunter2", ["hunter2"], "DUET_API_TOKEN=[redacted]"],
  ["generic _SECRET", "SLACK_SIGNING_SECRET: 8f742231b10e8888abcd99yyyzzz85a5", ["8f742231b10e"]],
  ["generic _KEY", "STRIPE_KEY=abc&other=1", ["abc"], "STRIPE_KEY=[redacted]&other=1"],
  ["PASSWORD=", "PASSWORD=correct-horse", ["correct-horse"], "PASSWORD=[redacted]"],
  ["prefixed PASSWORD", "MYSQL_ROOT_PASSWORD='p@ss w0rd'", ["p@ss", "w0rd"], "MYSQL_ROOT_PASSWORD='[redacted]'"],
  ["password in JSON", `{"user":"ann","password":"s3cr3t!"}`, ["s3cr3t"], `{"user":"ann","password":"[redacted]"}`],
  ["--password flag", "mysql --password=Tr0ub4dor -u root", ["Tr0ub4dor"], "mysql --password=[redacted] -u root"],
  ["YAML config", "environment:\n  POSTGRES_PASSWORD: example\n  api_token: abc.def", ["example", "abc.def"], "environment:\n  POSTGRES_PASSWORD: [redacted]\n  api_token: [redacted]"],
  ["tight env value that looks like code", "DB_PASSWORD=config.secret", ["config.secret"], "DB_PASSWORD=[redacted]"],
  ["API key header", `-H "X-Api-Key: 5up3rk3y"`, ["5up3rk3y"], `-H "X-Api-Key: [redacted]"`],
  ["database URL password", "DATABASE_URL=postgres://app:s3cr3tpw@db:5432/app", ["s3cr3tpw"]],
  ["redis URL, no user", "redis://:s3cr3tpw@cache:6379", ["s3cr3tpw"], "redis://:[redacted]@cache:6379"],
  ["JWT", j("id_token eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiIxMjM0NTY3ODkwIn0", ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"), ["eyJzdWIiOiIx", "dozjgNryP4J3"], "id_token [redacted]"],
];

const FALSE_POSITIVES: Array<[string, string]> = [
  ["git SHA", "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)"],
  ["short SHA and version", "a1b2c3d v1.2.3 10.0.0.1"],
  ["UUID", "request id 123e4567-e89b-12d3-a456-426614174000"],
  ["base64 of text", "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgYSBub3JtYWwgc2VudGVuY2Uu"],
  ["npm integrity", "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR"],
  ["docker digest", "image@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
  ["xoxo", "xoxo, gossip girl"],
  ["bare Slack prefix", "Slack bot tokens start with xoxb- and app tokens with xapp-"],
  ["sk- in names", "see task-sk-1 and risk-assessment-framework-document-v2"],
  ["Discord snowflakes", "<@123456789012345678> in <#987654321098765432>, message 112233445566778899"],
  ["dotted base64 that is not a Discord token", `${b64url("not a snowflake id!!")}.GaBcDe.${"A".repeat(30)}`],
  ["Bearer in prose", "Send a Bearer token in the Authorization header; the Bearer authentication scheme."],
  ["header without value", "Authorization: Bearer"],
  ["shell variable", `curl -H "Authorization: Bearer $GITHUB_TOKEN" -H "X-Key: $API_KEY"`],
  ["env reference", "API_KEY=$OPENAI_API_KEY TOKEN=${TOKEN} password: <your-password>"],
  ["Actions secret reference", "token: ${{ secrets.GITHUB_TOKEN }}"],
  ["non-secret KEY names", "monkey=banana sort_key=name KEY=value SSH_PUBLIC_KEY=ssh-ed25519"],
  ["lookalike names", "max_tokens: 256 TOKEN_URL=https://x PASSWORD_FILE=/run/pw password_hint=ask"],
  ["working directory", "PWD=/home/duet OLDPWD=/"],
  ["booleans", "GIT_TERMINAL_PASSWORD=false"],
  ["public key block", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----"],
  ["certificate", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----"],
  ["ssh URL and scp path", "ssh://git@github.com:22/o/r.git git@github.com:o/r.git http://localhost:8787/api"],
  ["AKIA lookalike", "AKIAFOO and AKIAIOSFODNN7EXAMPLEEXTRA"],
  ["provider prefixes in ordinary text", "AIzaShort npm_config_cache=/tmp/npm hf_hub_download glpat-short sk_live_x"],
  ["passwd file", "grep: /etc/passwd: Permission denied"],
  ["already redacted", "TOKEN=[redacted] xoxb-[redacted]"],
  ["TypeScript types", "interface Auth {\n  token: string;\n  password: string | null;\n  apiKey: String,\n}"],
  ["code expressions", "const token = await getToken();\npassword: z.string().min(8),\nsecret: config.secret,\nself.token = token"],
  ["generic types", "private_key: Option<String>,"],
];

describe("redactSecrets", () => {
  it.each(TRUE_POSITIVES)("redacts %s", (_name, input, secrets, expected) => {
    const out = redactSecrets(input);
    for (const secret of secrets) expect(out).not.toContain(secret);
    expect(out).toContain(REDACTED);
    if (expected !== undefined) expect(out).toBe(expected);
  });

  it.each(FALSE_POSITIVES)("leaves %s untouched", (_name, input) => {
    expect(redactSecrets(input)).toBe(input);
  });

  it("is idempotent, so the Worker and a bot may both apply it", () => {
    for (const [, input] of TRUE_POSITIVES) {
      const once = redactSecrets(input);
      expect(redactSecrets(once)).toBe(once);
    }
  });

  it("hides every occurrence of each extra secret of 8+ characters, and ignores shorter ones", () => {
    const out = redactSecrets("model key my-model-key-42 twice: my-model-key-42; pin 1234", ["my-model-key-42", "1234", ""]);
    expect(out).toBe("model key [redacted] twice: [redacted]; pin 1234");
  });

  it("hides an extra secret that contains another one completely", () => {
    const out = redactSecrets("a=longsecretvalue-plus", ["longsecretvalue", "longsecretvalue-plus"]);
    expect(out).toBe("a=[redacted]");
  });

  it("redacts several kinds in one command output", () => {
    const env = [`HOME=/root`, `SLACK_BOT_TOKEN=${SLACK_BOT}`, `DISCORD_TOKEN=${DISCORD}`, "PATH=/usr/bin"].join("\n");
    expect(redactSecrets(env)).toBe(
      ["HOME=/root", "SLACK_BOT_TOKEN=xoxb-[redacted]", "DISCORD_TOKEN=[redacted]", "PATH=/usr/bin"].join("\n"),
    );
  });

  it("returns 10 MB of near-miss text unchanged (no catastrophic backtracking)", () => {
    const nearMisses = [
      "xoxb-short ", "xoxo ", "ghp_tooShort ", "AKIA123 ", "sk-tiny ", "task-sk-1 ", "Bearer word ",
      "-----BEGIN PRIVATE KEY---- ", "-----BEGIN PUBLIC KEY----- ", `${b64url("123456789012345678")}.GaBcDe.short `,
      "eyJhbGciOi.nope ", "max_tokens: 5 ", "TOKEN_URL=x ", "monkey=1 ", "https://hooks.slack.com/ ",
      "http://host:80/path ", "a".repeat(500), "-", "A0-_".repeat(200), " Authorization header\n",
    ].join("");
    const input = nearMisses.repeat(Math.ceil((10 * 1024 * 1024) / nearMisses.length));
    expect(input.length).toBeGreaterThanOrEqual(10 * 1024 * 1024);
    expect(redactSecrets(input) === input).toBe(true);
  });

  it("copes with adversarial runs that defeat naive patterns", () => {
    expect(redactSecrets(`TOKEN: ${",".repeat(2_000_000)}x`)).toBe("TOKEN: [redacted]");
    const schemes = "a://".repeat(1_000_000) + "https://" + ":".repeat(1_000_000);
    expect(redactSecrets(schemes) === schemes).toBe(true);
  });

  it("handles 10 MB of unterminated private-key headers in one pass", () => {
    const line = "-----BEGIN PRIVATE KEY-----\nnot base64, just words!\n";
    const n = Math.ceil((10 * 1024 * 1024) / line.length);
    const out = redactSecrets(line.repeat(n));
    expect(out === "-----BEGIN PRIVATE KEY----- [redacted]\nnot base64, just words!\n".repeat(n)).toBe(true);
  });
});
