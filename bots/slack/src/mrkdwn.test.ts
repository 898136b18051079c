import { describe, expect, it } from "vitest";
import { escapeSlack, markdownToMrkdwn, slackToPlain, stripBotMention } from "./mrkdwn.ts";

describe("markdownToMrkdwn", () => {
  it("converts emphasis, links, headings and bullets", () => {
    const md = "# Plan\n**Bold** and *italic* and ~~gone~~, see [docs](https://example.com/a_b).\n- one\n* two";
    expect(markdownToMrkdwn(md)).toBe("*Plan*\n*Bold* and _italic_ and ~gone~, see <https://example.com/a_b|docs (example.com)>.\n• one\n• two");
  });

  it("escapes &, < and > everywhere, code included, so output cannot ping a channel", () => {
    expect(markdownToMrkdwn("a <!channel> & `x<y>` b")).toBe("a &lt;!channel&gt; &amp; `x&lt;y&gt;` b");
    expect(markdownToMrkdwn("```html\n<b>&</b>\n```")).toBe("```\n&lt;b&gt;&amp;&lt;/b&gt;\n```");
  });

  it("leaves code alone apart from escaping, drops the fence language and closes an open fence", () => {
    expect(markdownToMrkdwn("run:\n```bash\nls **/*.ts\n")).toBe("run:\n```\nls **/*.ts\n```");
    expect(markdownToMrkdwn("use `a*b*c` here")).toBe("use `a*b*c` here");
  });

  it("names the host a link really goes to beside its label", () => {
    expect(markdownToMrkdwn("[Click here](https://evil.example/login) to verify")).toBe("<https://evil.example/login|Click here (evil.example)> to verify");
    // A label that already shows the host stays as it is; one that names another host does not hide the real one.
    expect(markdownToMrkdwn("[https://x.io/a](https://x.io/a)")).toBe("<https://x.io/a|https://x.io/a>");
    expect(markdownToMrkdwn("[slack.com](https://slack.com.evil.example/)")).toBe("<https://slack.com.evil.example/|slack.com (slack.com.evil.example)>");
  });

  it("keeps arithmetic and snake_case readable", () => {
    expect(markdownToMrkdwn("2*3*4 = 24, my_var_name")).toBe("2*3*4 = 24, my_var_name");
  });
});

describe("slackToPlain", () => {
  it("unescapes entities and unwraps mentions, channels and links", () => {
    expect(slackToPlain("&lt;run&gt;ls &amp;&amp; pwd&lt;/run&gt; <@U1> <#C1|general> <https://x.io|site> <https://y.io> <!here>")).toBe(
      "<run>ls && pwd</run> @U1 #general site (https://x.io) https://y.io @here",
    );
  });
});

describe("stripBotMention", () => {
  it("removes the bot's own mention wherever it is, and nobody else's", () => {
    expect(stripBotMention("<@UBOT> hello <@U2>", "UBOT")).toBe("hello <@U2>");
    expect(stripBotMention("hey <@UBOT|duet>, look", "UBOT")).toBe("hey , look");
    expect(stripBotMention("<@UBOT>", "UBOT")).toBe("");
  });
});

describe("escapeSlack", () => {
  it("escapes the three control characters", () => {
    expect(escapeSlack("<a> & b")).toBe("&lt;a&gt; &amp; b");
  });
});
