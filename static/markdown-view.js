// Pagecast's pages: a small renderer of the Markdown the converter writes (headings, paragraphs,
// lists, block quotes, code fences, tables, rules, links, images as links, code spans and
// emphasis) into DOM nodes. It defines one global, window.PagecastMarkdown; text is only ever
// placed with textContent or as an attribute value, never parsed as HTML, and only http(s) and
// mailto links are kept.
"use strict";

(function () {
  // Read when called: this file may load before the shared one (static/pagecast.js).
  function el(...args) {
    return window.PagecastPage.el(...args);
  }

  const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
  const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
  const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
  const LIST_ITEM = /^( {0,12})([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
  const TABLE_SEPARATOR = /^ *\|? *:?-+:? *(?:\| *:?-+:? *)*\|? *$/;
  const QUOTE = /^ {0,3}> ?/;
  const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

  function renderMarkdown(text, baseUrl) {
    const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
    const fragment = document.createDocumentFragment();
    fragment.append(...blocks(lines, baseUrl, 0));
    return fragment;
  }

  function startsBlock(line, next) {
    return (
      FENCE.test(line) ||
      HEADING.test(line) ||
      RULE.test(line) ||
      QUOTE.test(line) ||
      LIST_ITEM.test(line) ||
      isTableStart(line, next)
    );
  }

  function isTableStart(line, next) {
    return next !== undefined && line.includes("|") && next.includes("|") && TABLE_SEPARATOR.test(next);
  }

  function blocks(lines, baseUrl, depth) {
    const out = [];
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) {
        i += 1;
        continue;
      }
      let match = FENCE.exec(line);
      if (match) {
        const fence = match[1];
        const body = [];
        i += 1;
        while (i < lines.length && !(lines[i].trim().startsWith(fence) && lines[i].trim().replace(/[`~]/g, "") === "")) {
          body.push(lines[i]);
          i += 1;
        }
        i += 1; // the closing fence
        const code = el("code", { text: body.join("\n") });
        if (match[2]) code.dataset.language = match[2];
        out.push(el("pre", {}, code));
        continue;
      }
      match = HEADING.exec(line);
      if (match) {
        out.push(el("h" + match[1].length, {}, inline(match[2] || "", baseUrl)));
        i += 1;
        continue;
      }
      if (RULE.test(line)) {
        out.push(el("hr", {}));
        i += 1;
        continue;
      }
      if (QUOTE.test(line)) {
        const quoted = [];
        while (i < lines.length && lines[i].trim() && QUOTE.test(lines[i])) {
          quoted.push(lines[i].replace(QUOTE, ""));
          i += 1;
        }
        out.push(el("blockquote", {}, depth < 8 ? blocks(quoted, baseUrl, depth + 1) : quoted.join("\n")));
        continue;
      }
      if (isTableStart(line, lines[i + 1])) {
        const separator = lines[i + 1];
        const rows = [line];
        i += 2;
        while (i < lines.length && lines[i].trim() && lines[i].includes("|")) {
          rows.push(lines[i]);
          i += 1;
        }
        out.push(table(rows, separator, baseUrl));
        continue;
      }
      match = LIST_ITEM.exec(line);
      if (match) {
        i = list(lines, i, baseUrl, depth, out);
        continue;
      }
      // Trailing spaces stay: two of them end a line with a hard break.
      const paragraph = [line.trimStart()];
      let level = 0;
      i += 1;
      while (i < lines.length && lines[i].trim()) {
        // Setext headings: a paragraph underlined with === or ---.
        const underline = SETEXT.exec(lines[i]);
        if (underline) {
          level = underline[1].startsWith("=") ? 1 : 2;
          i += 1;
          break;
        }
        if (startsBlock(lines[i], lines[i + 1])) break;
        paragraph.push(lines[i].trimStart());
        i += 1;
      }
      const joined = paragraph.join("\n").trimEnd();
      out.push(el(level ? "h" + level : "p", {}, inline(level ? joined.replace(/\s*\n/g, " ") : joined, baseUrl)));
    }
    return out;
  }

  // A list starting at lines[start]; appends it to out and returns the index after it.
  function list(lines, start, baseUrl, depth, out) {
    const first = LIST_ITEM.exec(lines[start]);
    const indent = first[1].length;
    const ordered = /\d/.test(first[2]);
    // Another bullet character or number delimiter starts another list.
    const marker = first[2].slice(-1);
    const sameList = (line) => {
      const match = LIST_ITEM.exec(line);
      return match !== null && match[1].length === indent && match[2].slice(-1) === marker;
    };
    const node = el(ordered ? "ol" : "ul", {});
    if (ordered && parseInt(first[2], 10) !== 1) node.setAttribute("start", String(parseInt(first[2], 10)));
    let i = start;
    let loose = false;
    const items = [];
    while (i < lines.length) {
      if (!sameList(lines[i])) break;
      const match = LIST_ITEM.exec(lines[i]);
      const contentIndent = indent + match[2].length + 1;
      const body = [match[3] || ""];
      i += 1;
      while (i < lines.length) {
        const line = lines[i];
        if (!line.trim()) {
          // A blank line continues the item only when the next line is indented under it.
          const next = lines[i + 1];
          if (next !== undefined && next.trim() && leading(next) >= contentIndent) {
            body.push("");
            loose = true;
            i += 1;
            continue;
          }
          if (next !== undefined && sameList(next)) loose = true;
          i += 1;
          break;
        }
        if (leading(line) >= Math.min(contentIndent, indent + 2)) {
          body.push(line.slice(Math.min(leading(line), contentIndent)));
        } else if (LIST_ITEM.test(line) || startsBlock(line, lines[i + 1])) {
          break;
        } else {
          body.push(line.trim()); // a lazy continuation of the paragraph
        }
        i += 1;
      }
      items.push(body);
      if (i < lines.length && !lines[i - 1].trim() && !sameList(lines[i])) break;
    }
    for (const body of items) {
      const children = depth < 8 ? blocks(body, baseUrl, depth + 1) : [body.join("\n")];
      const item = el("li", {});
      for (const child of children) {
        // Tight lists put the text straight in the item, without a paragraph around it.
        if (!loose && child instanceof Element && child.tagName === "P") item.append(...child.childNodes);
        else item.append(child);
      }
      node.append(item);
    }
    out.push(node);
    return i;
  }

  function leading(line) {
    return line.length - line.replace(/^ +/, "").length;
  }

  function splitRow(row) {
    let text = row.trim();
    if (text.startsWith("|")) text = text.slice(1);
    if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
    return text.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, "|"));
  }

  function table(rows, separator, baseUrl) {
    const header = splitRow(rows[0]);
    const aligns = splitRow(separator).map((cell) => (/^:-+:$/.test(cell) ? "center" : /-:$/.test(cell) ? "right" : /^:-/.test(cell) ? "left" : null));
    const cell = (tag, text, index) => el(tag, { className: aligns[index] ? "align-" + aligns[index] : null, scope: tag === "th" ? "col" : null }, inline(text, baseUrl));
    return el(
      "div",
      { className: "scroll" },
      el(
        "table",
        {},
        el("thead", {}, el("tr", {}, header.map((text, index) => cell("th", text, index)))),
        el(
          "tbody",
          {},
          rows.slice(1).map((row) => {
            const cells = splitRow(row);
            return el("tr", {}, header.map((_, index) => cell("td", cells[index] || "", index)));
          })
        )
      )
    );
  }

  function safeHref(url, baseUrl) {
    try {
      const resolved = new URL(url.trim(), baseUrl || undefined);
      return ["http:", "https:", "mailto:"].includes(resolved.protocol) ? resolved.href : null;
    } catch (error) {
      return null;
    }
  }

  function link(href, children, title) {
    if (!href) return el("span", {}, children);
    return el("a", { href, title: title || null, target: "_blank", rel: "noopener noreferrer nofollow" }, children);
  }

  // The destination of [text](...) starting at text[open] === "(": [url, title, end] or null.
  function destination(text, open) {
    let depth = 0;
    for (let i = open; i < text.length; i += 1) {
      const char = text[i];
      if (char === "\\") {
        i += 1;
      } else if (char === "(") {
        depth += 1;
      } else if (char === ")") {
        depth -= 1;
        if (depth === 0) {
          const inside = text.slice(open + 1, i).trim();
          const titled = /^(\S+)\s+["'(](.*)["')]$/.exec(inside);
          const url = (titled ? titled[1] : inside).replace(/^<(.*)>$/, "$1");
          return [url, titled ? titled[2] : null, i + 1];
        }
      }
    }
    return null;
  }

  // The ] that closes the [ at text[open], or -1.
  // Inline spans (links, code, emphasis) are looked for at most this far from where they open,
  // and a block longer than INLINE_LIMIT is shown as plain text: a hostile page cannot make the
  // renderer's work grow faster than its length.
  const SPAN_LIMIT = 1000;
  const INLINE_LIMIT = 20000;
  const TICK_RUN = /`+/y;
  const AUTOLINK = /<((?:https?:\/\/|mailto:)[^\s<>]+)>/y;

  function closingBracket(text, open) {
    let depth = 0;
    const limit = Math.min(text.length, open + SPAN_LIMIT);
    for (let i = open; i < limit; i += 1) {
      if (text[i] === "\\") i += 1;
      else if (text[i] === "[") depth += 1;
      else if (text[i] === "]" && --depth === 0) return i;
    }
    return -1;
  }

  const EMPHASIS = [
    ["**", "strong"],
    ["__", "strong"],
    ["~~", "del"],
    ["*", "em"],
    ["_", "em"],
  ];

  // Where the emphasis opened with mark closes: after a non-space, not half of a doubled mark,
  // and for underscores not inside a word; -1 when it does not.
  function closingMark(text, mark, from) {
    const near = text.slice(0, from + SPAN_LIMIT);
    for (let end = near.indexOf(mark, from); end > 0; end = near.indexOf(mark, end + 1)) {
      const before = text[end - 1];
      const after = text[end + mark.length] || "";
      const doubled = mark.length === 1 && (after === mark || before === mark);
      const inWord = mark === "_" && /[A-Za-z0-9]/.test(after);
      if (!/\s/.test(before) && !doubled && !inWord) {
        // In a run like *** the closing mark is its last characters: **a *b*** nests.
        let last = end;
        while (text[last + mark.length] === mark[0]) last += 1;
        return last;
      }
    }
    return -1;
  }

  function inline(text, baseUrl, depth) {
    depth = depth || 0;
    if (text.length > INLINE_LIMIT) return [document.createTextNode(text)];
    const nodes = [];
    let plain = "";
    const flush = () => {
      if (plain) nodes.push(document.createTextNode(plain));
      plain = "";
    };
    let i = 0;
    while (i < text.length) {
      const char = text[i];
      if (char === "\\" && i + 1 < text.length && /[!-/:-@[-`{-~]/.test(text[i + 1])) {
        plain += text[i + 1];
        i += 2;
        continue;
      }
      if (char === "`") {
        TICK_RUN.lastIndex = i;
        const ticks = TICK_RUN.exec(text)[0];
        const end = text.slice(0, i + SPAN_LIMIT).indexOf(ticks, i + ticks.length);
        if (end > 0) {
          flush();
          let code = text.slice(i + ticks.length, end).replace(/\n/g, " ");
          if (/^ .* $/.test(code) && code.trim()) code = code.slice(1, -1);
          nodes.push(el("code", { text: code }));
          i = end + ticks.length;
          continue;
        }
        plain += ticks;
        i += ticks.length;
        continue;
      }
      const image = char === "!" && text[i + 1] === "[";
      if ((char === "[" || image) && depth < 4) {
        const open = image ? i + 1 : i;
        const close = closingBracket(text, open);
        if (close > 0 && text[close + 1] === "(") {
          const target = destination(text, close + 1);
          if (target) {
            flush();
            const label = text.slice(open + 1, close);
            const href = safeHref(target[0], baseUrl);
            if (image) {
              // Images are not loaded from other sites: shown as a link to the image instead.
              nodes.push(link(href, el("span", { className: "md-image", text: "image: " + (label || target[0]) }), target[1]));
            } else {
              nodes.push(link(href, inline(label, baseUrl, depth + 1), target[1]));
            }
            i = target[2];
            continue;
          }
        }
      }
      if (char === "<") {
        AUTOLINK.lastIndex = i;
        const auto = AUTOLINK.exec(text);
        if (auto) {
          flush();
          nodes.push(link(safeHref(auto[1], baseUrl), auto[1]));
          i += auto[0].length;
          continue;
        }
      }
      const emphasis = depth < 6 && EMPHASIS.find(([mark]) => text.startsWith(mark, i));
      if (emphasis) {
        const [mark, tag] = emphasis;
        const after = text[i + mark.length];
        const before = i > 0 ? text[i - 1] : " ";
        // Underscores inside words (snake_case) are not emphasis.
        const wordUnderscore = mark[0] === "_" && /[A-Za-z0-9]/.test(before);
        if (after && !/\s/.test(after) && !wordUnderscore) {
          const end = closingMark(text, mark, i + mark.length + 1);
          if (end > 0) {
            flush();
            nodes.push(el(tag, {}, inline(text.slice(i + mark.length, end), baseUrl, depth + 1)));
            i = end + mark.length;
            continue;
          }
        }
        plain += mark;
        i += mark.length;
        continue;
      }
      if (char === "\n") {
        // Two trailing spaces or a backslash make a hard break; otherwise a newline is a space.
        if (/ {2}$|\\$/.test(plain)) {
          plain = plain.replace(/ +$|\\$/, "");
          flush();
          nodes.push(el("br", {}));
        } else {
          plain += "\n";
        }
        i += 1;
        continue;
      }
      plain += char;
      i += 1;
    }
    flush();
    return nodes;
  }

  window.PagecastMarkdown = { render: renderMarkdown, safeHref, link };
})();
