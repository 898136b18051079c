import { describe, expect, it } from "vitest";
import { withoutPrompts } from "./prompt-sign.ts";

describe("prompt signs and redirections", () => {
  it("keeps a command that is a redirection", () => {
    for (const cmd of ["> out.txt", ">> log", ">out.txt", "> log", "> file", '> "my notes.txt"', "> $LOG", "> app.log 2>&1", "> app.log && tail app.log", "> a.log; > b.log"]) {
      expect(withoutPrompts(cmd), cmd).toBe(cmd);
    }
  });

  it("drops a > prompt in front of a command", () => {
    expect(withoutPrompts("> npm test")).toBe("npm test");
    expect(withoutPrompts("> ls > files.txt")).toBe("ls > files.txt");
    expect(withoutPrompts("> ./build.sh --release")).toBe("./build.sh --release");
    expect(withoutPrompts(">\tpwd")).toBe("pwd");
    expect(withoutPrompts("> ls && pwd")).toBe("ls && pwd");
    expect(withoutPrompts("$ > out.txt")).toBe("> out.txt");
  });

  it("drops continuation signs only when every later line has one", () => {
    expect(withoutPrompts("> cat <<EOF\n> hello\n>\n> EOF")).toBe("cat <<EOF\nhello\n\nEOF");
    expect(withoutPrompts("$ cat > q.md <<'EOF'\n> quoted\nEOF")).toBe("cat > q.md <<'EOF'\n> quoted\nEOF");
    // The first line decides: two truncations stay two truncations.
    expect(withoutPrompts("> a.txt\n> b.txt")).toBe("> a.txt\n> b.txt");
    expect(withoutPrompts("cat <<EOF\n> hi\nEOF")).toBe("cat <<EOF\n> hi\nEOF");
  });
});
