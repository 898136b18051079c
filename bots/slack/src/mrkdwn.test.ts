import { describe, expect, it } from "vitest";
import { escapeSlack, markdownToMrkdwn, slackToPlain, stripBotMention } from "./mrkdwn.ts";

describe("markdownToMrkdwn", () => {
  it("converts emphasis, links, headings and bullets", () => {
    const md = "# Plan\n**Bold** and *italic* and ~~gone~~, see [docs](https://example.com/a_b).\n- one\n* two";
    expect(markdownToMrkdwn(md)).toBe("*Plan*\n*Bold* and _italic_ and ~gone~, see <https://example.com/a_b|docs>.\n• one\n• two");
  });

  it("escapes &, < and > everywhere, code included, so output cannot ping a channel", () => {
    expect(markdownToMrkdwn("a <!channel> & `x<y>` b")).toBe("a &lt;!channel&gt; &amp; `x&lt;y&gt;` b");
    expect(markdownToMrkdwn("```html\n<b>&</b>\n```")).toBe("```\n&lt;b&gt;&amp;&lt;/b&gt;\n```");
  });

  it("leaves code alone apart from escaping, drops the fence language and closes an open fence", () => {
    expect(markdownToMrkdwn("run:\n```bash\nls **/*.ts\n")).toBe("run:\n```\nls **/*.ts\n```");
    expect(markdownToMrkdwn("use `a*b*c` here")).toBe("use `a*b*c` here");
  });

  it("makes a Markdown link Slack's link, its label escaped", () => {
    expect(markdownToMrkdwn("[Click here (evil.example)](https://evil.example/login) to verify")).toBe("<https://evil.example/login|Click here (evil.example)> to verify");
    expect(markdownToMrkdwn("[a <b> | c](https://x.io/a)")).toBe("<https://x.io/a|a &lt;b&gt; ¦ c>");
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
