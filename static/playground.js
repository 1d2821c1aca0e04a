// Pagecast playground: builds a request form from openapi.json, calls the API on this origin and
// shows the result as a person wants it (image, embed, rendered Markdown, chunks, headers, curl).
// Text from the API or from a page is only ever placed with textContent or as an attribute value,
// never parsed as HTML; the one exception is an embed's html, which goes into a sandboxed srcdoc
// frame that inherits this page's Content-Security-Policy.
"use strict";

(function () {
  const { el, richText, deref, isBooleanEnum, loadOpenApi } = window.PagecastPage;
  const { render: renderMarkdown, safeHref, link } = window.PagecastMarkdown;
  const KEY_STORAGE = "pagecast-playground-key";
  const OPERATION_STORAGE = "pagecast-playground-operation";
  const VERSION_STORAGE = "pagecast-playground-version";
  const FORM_STORAGE = "pagecast-playground-form";
  // Where an operation takes its target URL, in the order the form select offers them.
  const FORMS = ["path", "query"];
  const FORM_LABELS = { path: "in the path (encoded)", query: "as the url= parameter" };
  const LENIENT = /Allowed: ([^;]+); anything else means the default\./;
  const ALIAS = /^Alias of `([^`]+)`/;
  const REQUEST_TIMEOUT_MS = 180000;
  // Shown first in the headers table; the rest follow in the order the browser lists them.
  const HEADER_ORDER = [
    "x-billing-requests",
    "x-request-id",
    "content-type",
    "retry-after",
    "x-markdown-character-count",
    "x-markdown-truncated",
    "x-markdown-truncation-reason",
    "x-ai-safety-score",
    "x-ai-safety-level",
    "x-screenshot-url",
  ];
  // Envelope fields with their own section; the others are listed under "Other fields".
  const SHOWN_FIELDS = ["markdown", "chunks", "ai_safety", "request_id"];
  // The embed frame: popups (the card's link opens a new tab) but no script and no same-origin
  // access; the frame host's page inside inherits these flags.
  const EMBED_SANDBOX = "allow-popups allow-popups-to-escape-sandbox";
  const MAX_FRAME_SIZE = 2000;

  const state = {
    doc: null,
    baseUrl: "",
    families: new Map(),
    forms: new Map(),
    keyHeader: "api-key",
    objectUrl: null,
    running: false,
  };

  // --- DOM helpers -------------------------------------------------------------------------

  function $(id) {
    return document.getElementById(id);
  }

  function clear(node) {
    node.textContent = "";
    return node;
  }

  function pairs(dl, entries) {
    clear(dl);
    for (const [name, value] of entries) {
      if (value === undefined) continue;
      dl.append(el("dt", { text: name }), el("dd", {}, value instanceof Node ? value : show(value)));
    }
  }

  function show(value) {
    if (value === null) return "null";
    if (typeof value === "string") return value;
    return JSON.stringify(value);
  }

  function storage(kind) {
    try {
      return window[kind];
    } catch (error) {
      return null; // storage disabled by the browser
    }
  }

  // --- OpenAPI -----------------------------------------------------------------------------

  function isBoolean(schema) {
    return schema.type === "boolean" || isBooleanEnum(schema);
  }

  // Operations that take a target page and an API key: the ones worth trying here.
  function tryableOperations(doc) {
    const found = [];
    for (const [path, rawItem] of Object.entries(doc.paths || {})) {
      const item = deref(doc, rawItem) || {};
      const operation = item.get;
      if (!operation) continue;
      const params = [...(item.parameters || []), ...(operation.parameters || [])]
        .map((raw) => deref(doc, raw))
        .filter((param) => param && param.name);
      const target = params.find((p) => p.in === "path" && p.name === "encoded_url");
      const queryTarget = !target && params.find((p) => p.in === "query" && p.name === "url");
      const keyed = params.some((p) => p.in === "query" && p.name === "app_id");
      if (!keyed || !(target || queryTarget)) continue;
      const version = /^\/api\/([^/]+)\//.exec(path);
      found.push({
        id: operation.operationId || "GET " + path,
        path,
        summary: operation.summary || path,
        version: version ? version[1] : "",
        targetIn: target ? "path" : "query",
        params: params.filter((p) => p.in === "query" && p.name !== "app_id" && !(queryTarget && p.name === "url")),
        kind: /\/screenshot/.test(path) ? "screenshot" : /\/oembed/.test(path) ? "oembed" : /\/markdown/.test(path) ? "markdown" : "other",
      });
    }
    return found;
  }

  // One entry per endpoint: the operations of one kind (its versions, and the target in the
  // path or as url=) are the variants of one family, chosen with the version and form selects.
  function families(operations) {
    const found = new Map();
    for (const operation of operations) {
      const id = operation.kind === "other" ? operation.id : operation.kind;
      if (!found.has(id)) found.set(id, { id, variants: [] });
      found.get(id).variants.push(operation);
    }
    for (const family of found.values()) {
      const first = family.variants[0];
      // Variants differ only in what their summaries say in parentheses.
      family.title = family.variants.length > 1 ? first.summary.replace(/\s*\([^)]*\)\s*$/, "") : first.summary;
      family.versions = [...new Set(family.variants.map((v) => v.version))].sort((a, b) => b.localeCompare(a, "en", { numeric: true }));
      family.forms = FORMS.filter((form) => family.variants.some((v) => v.targetIn === form));
    }
    return found;
  }

  // The header an API key is sent in: the header scheme of the document, X-API-Key if offered.
  function keyHeader(doc) {
    const schemes = Object.values((doc.components && doc.components.securitySchemes) || {}).map((scheme) => deref(doc, scheme) || {});
    const headers = schemes.filter((scheme) => scheme.type === "apiKey" && scheme.in === "header" && scheme.name);
    const preferred = headers.find((scheme) => /^x-api-key$/i.test(scheme.name)) || headers[0];
    return preferred ? preferred.name : "api-key";
  }

  // --- The parameter form ------------------------------------------------------------------

  function controlId(family, param) {
    return "param-" + family.id + "-" + param.name;
  }

  function describe(schema, param) {
    const notes = [];
    if ("default" in schema) notes.push("default " + show(schema.default));
    const low = schema.minimum;
    const high = schema.maximum;
    if (low !== undefined && high !== undefined) notes.push(low + "–" + high);
    else if (low !== undefined) notes.push("≥ " + low);
    else if (high !== undefined) notes.push("≤ " + high);
    if (schema.maxLength !== undefined) notes.push("up to " + schema.maxLength + " characters");
    if (param.example !== undefined && !isBoolean(schema)) notes.push("e.g. " + show(param.example));
    return notes.join(" · ");
  }

  // One parameter: its control, label and description; read() gives the value to send or null.
  function parameterRow(family, param, onChange) {
    const schema = param.schema || {};
    const id = controlId(family, param);
    const helpId = id + "-help";
    const hasDefault = "default" in schema;
    const defaultText = hasDefault ? show(schema.default) : "";
    const lenient = !Array.isArray(schema.enum) && LENIENT.exec(param.description || "");
    const choices = Array.isArray(schema.enum) ? schema.enum.map(show) : lenient ? lenient[1].split(/,\s*/) : null;
    let control;
    let read;
    let reset;
    let set;
    if (isBoolean(schema) && hasDefault) {
      const checked = defaultText === "true" || defaultText === "1";
      control = el("input", { type: "checkbox", id, name: param.name, "aria-describedby": helpId });
      reset = () => {
        control.checked = checked;
      };
      set = (value) => {
        control.checked = value === "true";
      };
      read = () => (control.checked === checked ? null : control.checked ? "true" : "false");
    } else if (choices) {
      const values = isBoolean(schema) ? ["true", "false"] : choices;
      const unset = hasDefault ? [] : [el("option", { value: "", text: "(not set: the server decides)" })];
      control = el(
        "select",
        { id, name: param.name, "aria-describedby": helpId },
        unset,
        values.map((value) => el("option", { value, text: value === defaultText ? value + " (default)" : value }))
      );
      reset = () => {
        control.value = hasDefault ? defaultText : "";
      };
      set = (value) => {
        control.value = value;
      };
      read = () => (control.value === "" || control.value === defaultText ? null : control.value);
    } else {
      const numeric = schema.type === "integer" || schema.type === "number";
      control = el("input", {
        type: numeric ? "number" : "text",
        id,
        name: param.name,
        min: numeric ? schema.minimum : undefined,
        max: numeric ? schema.maximum : undefined,
        step: numeric ? (schema.type === "integer" ? 1 : "any") : undefined,
        maxlength: numeric ? undefined : schema.maxLength,
        inputmode: schema.type === "integer" ? "numeric" : undefined,
        placeholder: hasDefault ? defaultText : param.example !== undefined ? show(param.example) : undefined,
        autocomplete: "off",
        spellcheck: "false",
        "aria-describedby": helpId,
      });
      reset = () => {
        control.value = "";
      };
      set = (value) => {
        control.value = value;
      };
      read = () => {
        const value = control.value.trim();
        return value === "" || value === defaultText ? null : value;
      };
    }
    reset();
    const label = el("label", { for: id }, el("code", { text: param.name }));
    const notes = describe(schema, param);
    const row = el(
      "div",
      { className: "param" + (control.type === "checkbox" ? " param-check" : ""), "data-param": param.name },
      control.type === "checkbox" ? [control, label] : [label, control],
      el("p", { id: helpId, className: "help" }, richText(param.description), notes ? el("span", { className: "notes", text: " (" + notes + ")" }) : null)
    );
    const mark = () => {
      row.classList.toggle("changed", read() !== null);
      onChange();
    };
    control.addEventListener("input", mark);
    control.addEventListener("change", mark);
    const resetRow = () => {
      reset();
      mark();
    };
    const setRow = (value) => {
      set(value);
      mark();
    };
    const words = (param.name + " " + (param.description || "") + " " + (param["x-group"] || "")).toLowerCase();
    return { name: param.name, group: param["x-group"] || null, row, read, reset: resetRow, set: setRow, words };
  }

  // A family's parameters (every variant's, once), in groups when the document names them.
  function formFor(family) {
    if (state.forms.has(family.id)) return state.forms.get(family.id);
    const seen = new Map();
    for (const variant of family.variants) {
      for (const param of variant.params) {
        if (!seen.has(param.name) && !ALIAS.test(param.description || "")) seen.set(param.name, param); // aliases only repeat a parameter
      }
    }
    const groups = new Map();
    const refresh = () => {
      for (const group of groups.values()) {
        const changed = group.rows.filter((row) => row.read() !== null).length;
        group.count.textContent = group.rows.length + (changed ? " · " + changed + " changed" : "");
      }
    };
    const rows = [...seen.values()].map((param) => parameterRow(family, param, refresh));
    const list = el("div", { className: "param-rows" });
    const loose = rows.filter((row) => !row.group);
    if (loose.length) list.append(el("div", { className: "param-group-rows" }, loose.map((row) => row.row)));
    for (const row of rows.filter((r) => r.group)) {
      if (!groups.has(row.group)) {
        const count = el("span", { className: "group-count" });
        const body = el("div", { className: "param-group-rows" });
        const details = el("details", { className: "param-group", "data-group": row.group }, el("summary", {}, el("span", { className: "group-title", text: row.group }), " ", count), body);
        // The first group (the essentials) starts open; the others open when wanted.
        details.open = groups.size === 0;
        groups.set(row.group, { details, body, count, rows: [] });
        list.append(details);
      }
      const group = groups.get(row.group);
      group.rows.push(row);
      group.body.append(row.row);
    }
    if (!rows.length) list.append(el("p", { className: "muted", text: "No parameters." }));
    refresh();
    state.forms.set(family.id, { list, rows, groups });
    return state.forms.get(family.id);
  }

  // Shows only the parameters whose name or description has every word of the filter; groups
  // with a match open while the filter is set and go back to how they were when it is cleared.
  function applyParamFilter() {
    const family = currentFamily();
    if (!family) return;
    const form = formFor(family);
    const terms = $("param-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of form.rows) {
      const visible = terms.every((term) => row.words.includes(term));
      row.row.hidden = !visible;
      if (visible) shown += 1;
    }
    for (const group of form.groups.values()) {
      const matches = group.rows.some((row) => !row.row.hidden);
      group.details.hidden = !matches;
      if (terms.length) {
        if (group.details.dataset.wasOpen === undefined) group.details.dataset.wasOpen = String(group.details.open);
        group.details.open = matches;
      } else if (group.details.dataset.wasOpen !== undefined) {
        group.details.open = group.details.dataset.wasOpen === "true";
        delete group.details.dataset.wasOpen;
      }
    }
    $("param-filter-status").textContent = terms.length ? shown + " of " + form.rows.length + " parameters" : "";
  }

  function currentFamily() {
    return state.families.get($("operation").value);
  }

  // The variant the version and form selects point at (the first of the version otherwise).
  function currentOperation() {
    const family = currentFamily();
    if (!family) return null;
    const version = $("version").value;
    const form = $("form").value;
    const ofVersion = family.variants.filter((v) => !version || v.version === version);
    return ofVersion.find((v) => v.targetIn === form) || ofVersion[0] || family.variants[0];
  }

  function fillSelect(select, values, labels, keep) {
    clear(select);
    for (const value of values) select.append(el("option", { value, text: labels(value) }));
    if (values.includes(keep)) select.value = keep;
  }

  function showOperation() {
    const family = currentFamily();
    if (!family) return;
    const saved = storage("sessionStorage");
    fillSelect($("version"), family.versions, (v) => v, $("version").value || (saved && saved.getItem(VERSION_STORAGE)));
    fillSelect($("form"), family.forms, (f) => FORM_LABELS[f], $("form").value || (saved && saved.getItem(FORM_STORAGE)));
    $("version-field").hidden = family.versions.length < 2;
    $("form-field").hidden = family.forms.length < 2;
    $("variants").hidden = $("version-field").hidden && $("form-field").hidden;
    const holder = clear($("param-list"));
    holder.append(formFor(family).list);
    showVariant();
    applyParamFilter();
    if (saved) saved.setItem(OPERATION_STORAGE, family.id);
  }

  function showVariant() {
    const operation = currentOperation();
    if (!operation) return;
    $("operation-help").textContent = "GET " + operation.path + (operation.targetIn === "query" ? "?url=…" : "");
    const saved = storage("sessionStorage");
    if (saved && !$("variants").hidden) {
      saved.setItem(VERSION_STORAGE, $("version").value);
      saved.setItem(FORM_STORAGE, $("form").value);
    }
  }

  // --- Examples ----------------------------------------------------------------------------

  // Fills the form with an example (a button of playground.html): its endpoint, its parameters
  // (every other one back to its default, the groups holding them opened) and its page when the
  // form has none.
  function applyExample(button) {
    $("operation").value = button.dataset.operation;
    showOperation();
    const form = formFor(currentFamily());
    for (const row of form.rows) row.reset();
    for (const [name, value] of new URLSearchParams(button.dataset.params || "")) {
      const row = form.rows.find((candidate) => candidate.name === name);
      if (!row) continue;
      row.set(value);
      const group = row.row.closest("details");
      if (group) group.open = true;
    }
    const target = $("target-url");
    if (!target.value.trim()) target.value = button.dataset.target || "";
    for (const other of $("example-buttons").querySelectorAll("button")) {
      other.setAttribute("aria-pressed", String(other === button));
    }
    $("example-help").textContent = button.dataset.help || "";
  }

  // Offers the examples whose endpoint and parameters the API description has. Each button of
  // #example-buttons names its endpoint (data-operation), the parameters it sets as a query
  // string (data-params), the page it tries when the form has none (data-target) and what it
  // shows (data-help).
  function setUpExamples() {
    let offered = 0;
    for (const button of $("example-buttons").querySelectorAll("button")) {
      const family = state.families.get(button.dataset.operation);
      const names = new Set(family ? family.variants.flatMap((variant) => variant.params.map((param) => param.name)) : []);
      const wanted = [...new URLSearchParams(button.dataset.params || "").keys()];
      button.hidden = !family || !wanted.every((name) => names.has(name));
      button.setAttribute("aria-pressed", "false");
      if (button.hidden) continue;
      button.addEventListener("click", () => applyExample(button));
      offered += 1;
    }
    $("examples").hidden = offered === 0;
  }

  // --- Building the request ----------------------------------------------------------------

  function encodeValue(value) {
    // Also ' so the URL can sit inside single quotes in the curl command.
    return encodeURIComponent(value).replace(/'/g, "%27");
  }

  function shellQuote(text) {
    return "'" + String(text).replace(/'/g, "'\\''") + "'";
  }

  // The key travels in a header, never in the address (which ends up in logs and histories).
  function buildRequest(family, operation, key, target) {
    const query = [];
    if (operation.targetIn === "query") query.push(["url", target]);
    const sent = new Set(operation.params.map((param) => param.name));
    for (const row of formFor(family).rows) {
      const value = row.read();
      if (value !== null && sent.has(row.name)) query.push([row.name, value]);
    }
    const path = operation.path.replace("{encoded_url}", encodeValue(target));
    const search = query.map(([name, value]) => encodeValue(name) + "=" + encodeValue(value)).join("&");
    const relative = path + (search ? "?" + search : "");
    return {
      fetchUrl: new URL("." + relative, document.baseURI).href,
      headers: { [state.keyHeader]: key },
      curl: "curl -i -H " + shellQuote(state.keyHeader + ": " + key) + " '" + state.baseUrl + relative + "'",
    };
  }

  // --- Showing a response ------------------------------------------------------------------

  const SECTIONS = [
    "summary-section",
    "curl-section",
    "error-section",
    "screenshot-section",
    "embed-section",
    "markdown-section",
    "chunks-section",
    "safety-section",
    "fields-section",
    "headers-section",
    "body-section",
  ];

  function resetResult() {
    for (const id of SECTIONS) $(id).hidden = true;
    $("result-empty").hidden = true;
    if (state.objectUrl) URL.revokeObjectURL(state.objectUrl);
    state.objectUrl = null;
    $("screenshot").removeAttribute("src");
    clear($("embed-frame"));
    $("copy-status").textContent = "";
    $("copy-markdown-status").textContent = "";
    $("open-frame").hidden = true;
    $("open-frame").removeAttribute("href");
    $("download-image").removeAttribute("href");
  }

  function showCurl(curl) {
    $("curl").textContent = curl;
    $("curl-section").hidden = false;
  }

  function showSummary(response, elapsed, body) {
    const status = el("span", { className: "status-code " + (response.ok ? "ok" : "error"), text: response.status + (response.statusText ? " " + response.statusText : "") });
    const credits = response.headers.get("X-BILLING-REQUESTS");
    pairs($("summary"), [
      ["Status", status],
      ["Credits", credits === null ? "(no X-BILLING-REQUESTS header)" : el("span", { id: "credits", text: credits })],
      ["Request id", response.headers.get("X-Request-Id") || (body && body.request_id) || "—"],
      ["Time", Math.round(elapsed) + " ms"],
    ]);
    $("summary-section").hidden = false;
  }

  function showHeaders(headers) {
    const entries = [...headers.entries()];
    const rank = (name) => {
      const index = HEADER_ORDER.indexOf(name.toLowerCase());
      return index < 0 ? HEADER_ORDER.length : index;
    };
    entries.sort((a, b) => rank(a[0]) - rank(b[0]));
    const tbody = clear($("headers").tBodies[0]);
    for (const [name, value] of entries) {
      tbody.append(el("tr", { "data-header": name.toLowerCase() }, el("th", { scope: "row" }, el("code", { text: name })), el("td", {}, el("code", { text: value }))));
    }
    $("headers-section").hidden = false;
  }

  function showBody(text) {
    $("body").textContent = text;
    $("body-section").hidden = false;
  }

  // Both documented error shapes: oEmbed/screenshot {success, error: {code, message, stage,
  // details}} and Markdown {error: {code, message}, request_id}.
  function showError(response, body, text) {
    const entries = [];
    if (response) entries.push(["HTTP status", String(response.status)]);
    const error = body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : null;
    if (error) {
      entries.push(["Code", el("code", { text: show(error.code) })]);
      entries.push(["Message", error.message === undefined ? "—" : show(error.message)]);
      if ("stage" in error) entries.push(["Stage", show(error.stage)]);
      if ("details" in error && error.details !== null) {
        const details = Array.isArray(error.details)
          ? el("ul", {}, error.details.map((d) => el("li", {}, d && d.parameter ? [el("code", { text: d.parameter }), " " + show(d.message)] : show(d))))
          : show(error.details);
        entries.push(["Details", details]);
      }
      if (body.request_id) entries.push(["Request id", show(body.request_id)]);
    } else {
      entries.push(["Message", text || "The response has no error body."]);
    }
    const retry = response && response.headers.get("Retry-After");
    if (retry) entries.push(["Retry after", retry + " s"]);
    pairs($("error"), entries);
    $("error-section").hidden = false;
  }

  function showScreenshot(src, info, pdf, fileName) {
    const download = $("download-image");
    download.href = src;
    download.setAttribute("download", fileName);
    download.textContent = pdf ? "Download PDF" : "Download image";
    const image = $("screenshot");
    // A PDF cannot be an <img>: the link alone opens it.
    image.hidden = Boolean(pdf);
    if (pdf) image.removeAttribute("src");
    else image.src = src;
    $("screenshot-link").href = src;
    $("screenshot-pdf").hidden = !pdf;
    $("screenshot-info").textContent = info;
    $("screenshot-section").hidden = false;
  }

  function showEmbed(body) {
    const size = (value, fallback) => Math.min(Math.max(parseInt(value, 10) || fallback, 50), MAX_FRAME_SIZE);
    const frame = el("iframe", {
      title: "Embed preview",
      sandbox: EMBED_SANDBOX,
      referrerpolicy: "no-referrer",
      // The srcdoc page's default 8px margin on each side.
      width: size(body.width, 600) + 16,
      height: size(body.height, 400) + 16,
    });
    frame.srcdoc = typeof body.html === "string" ? body.html : "";
    clear($("embed-frame")).append(frame);
    const facts = [
      body.source ? "source " + body.source : null,
      body.type ? "type " + body.type : null,
      body.width && body.height ? body.width + "×" + body.height : null,
      body.provider_name ? "provider " + body.provider_name : null,
      body.embed_id ? "embed_id " + body.embed_id : null,
    ].filter(Boolean);
    $("embed-info").textContent = facts.join(" · ");
    const note = clear($("embed-note"));
    const frameHref = typeof body.frame_url === "string" ? safeHref(body.frame_url) : null;
    if (frameHref) {
      note.append("Hosted frame: ", link(frameHref, body.frame_url), ".");
      $("open-frame").href = frameHref;
      $("open-frame").hidden = false;
    }
    if (body.source && body.source !== "og_frame") {
      note.append(
        (note.textContent ? " " : "") +
          "This page's security policy loads frames from Pagecast's frame host only, so a provider's own player or script may not show here; paste the html into your page to see it."
      );
    }
    $("embed-html").textContent = body.html || "";
    $("embed-section").hidden = false;
  }

  function showMarkdown(markdown, pageUrl) {
    $("markdown-raw").value = markdown;
    const rendered = clear($("markdown-rendered"));
    rendered.append(renderMarkdown(markdown, pageUrl));
    $("markdown-section").hidden = false;
  }

  function showChunks(chunks, usage) {
    const holder = clear($("chunks"));
    for (const chunk of chunks) {
      const path = Array.isArray(chunk.heading_path) && chunk.heading_path.length ? chunk.heading_path.join(" › ") : "(before the first heading)";
      const score = typeof chunk.relevance_score === "number" ? chunk.relevance_score : null;
      const head = el(
        "p",
        { className: "chunk-head" },
        el("span", { className: "chunk-index", text: "#" + show(chunk.index) }),
        " ",
        el("span", { className: "heading-path", text: path }),
        score === null
          ? null
          : [" ", el("meter", { min: 0, max: 1, value: score, "aria-label": "relevance" }), " ", el("span", { className: "score", text: "score " + score.toFixed(3) })],
        chunk.character_count !== undefined ? el("span", { className: "muted", text: " · " + chunk.character_count + " characters" }) : null
      );
      holder.append(el("li", { className: "chunk" }, head, chunk.text === undefined ? null : el("pre", { className: "raw", text: chunk.text })));
    }
    const facts = [chunks.length + " shown"];
    if (usage && usage.chunk_count !== undefined) facts.push(usage.chunk_count + " in the document");
    if (usage && usage.chunks_truncated) facts.push("cut at max_chunks");
    if (usage && usage.chunk_error) facts.push("chunk_error: " + show(usage.chunk_error));
    if (chunks.some((c) => typeof c.relevance_score === "number")) facts.push("best match first");
    $("chunks-info").textContent = facts.join(" · ");
    $("chunks-section").hidden = false;
  }

  function showSafety(safety) {
    const level = el("span", { className: "risk risk-" + String(safety.risk_level).replace(/[^a-z]/g, ""), text: show(safety.risk_level) });
    const signals = Array.isArray(safety.signals) && safety.signals.length ? el("ul", {}, safety.signals.map((signal) => el("li", {}, el("code", { text: show(signal) })))) : "none";
    pairs($("safety"), [
      ["Risk score", safety.risk_score],
      ["Risk level", level],
      ["Action taken", safety.action_taken],
      ["Recommendation", safety.recommendation],
      ["Signals", signals],
    ]);
    $("safety-section").hidden = false;
  }

  function showFields(body) {
    const holder = clear($("fields"));
    for (const [name, value] of Object.entries(body)) {
      if (SHOWN_FIELDS.includes(name)) continue;
      let content;
      if (value && typeof value === "object" && !Array.isArray(value)) {
        content = el("dl", { className: "pairs" });
        pairs(content, Object.entries(value).map(([key, inner]) => [key, el("code", { text: show(inner) })]));
      } else {
        content = el("pre", { className: "raw", text: JSON.stringify(value, null, 2) });
      }
      holder.append(el("h4", {}, el("code", { text: name })), content);
    }
    $("fields-section").hidden = !holder.childNodes.length;
  }

  function showJson(operation, body, target) {
    if (typeof body.screenshotUrl === "string") {
      const href = safeHref(body.screenshotUrl);
      const dims = body.dimensions || {};
      const info = body.requestInfo || {};
      const pdf = /\.pdf$/.test(body.screenshotUrl);
      const timing = body.timing || {};
      showScreenshot(href || "", [
        dims.width + "×" + dims.height + (pdf ? " pixels a page" : " pixels"),
        pdf && body.pages ? body.pages + " pages" : null,
        info.host ? "host " + info.host : null,
        info.responseCode ? "page answered " + info.responseCode : null,
        body.cached ? "an identical earlier capture, reused" : null,
        timing.ready ? "waited " + timing.ready_ms + " ms after load (" + timing.ready + ")" : null,
        body.expiresAt ? "the link expires at " + body.expiresAt : "the link expires 24 hours after capture",
      ].filter(Boolean).join(" · "), pdf, (href || "").split("/").pop() || "screenshot");
      return;
    }
    if (typeof body.html === "string" && (body.type || body.source)) {
      showEmbed(body);
      return;
    }
    if (typeof body.markdown === "string") showMarkdown(body.markdown, (body.metadata && body.metadata.final_url) || target);
    if (Array.isArray(body.chunks)) showChunks(body.chunks, body.usage);
    if (body.ai_safety && typeof body.ai_safety === "object") showSafety(body.ai_safety);
    if (operation.kind === "markdown") showFields(body);
  }

  async function run(event) {
    event.preventDefault();
    if (state.running) return;
    const family = currentFamily();
    const operation = currentOperation();
    const keyInput = $("api-key");
    const urlInput = $("target-url");
    const key = keyInput.value.trim();
    const target = urlInput.value.trim();
    const status = $("run-status");
    if (!key || !target) {
      status.textContent = !key ? "Enter your API key." : "Enter the URL of a page.";
      status.classList.add("error");
      (!key ? keyInput : urlInput).focus();
      return;
    }
    const request = buildRequest(family, operation, key, target);
    const result = $("result");
    state.running = true;
    $("run").disabled = true;
    result.setAttribute("aria-busy", "true");
    result.dataset.state = "running";
    status.classList.remove("error");
    status.textContent = "Running " + family.title + "…";
    resetResult();
    showCurl(request.curl);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), REQUEST_TIMEOUT_MS);
    const started = performance.now();
    let outcome = "error";
    try {
      const response = await fetch(request.fetchUrl, {
        // Markdown answers in its default format unless the form asks for json.
        headers: { ...request.headers, Accept: operation.kind === "markdown" ? "text/markdown, application/json;q=0.9" : "application/json, image/*;q=0.8, application/pdf;q=0.8" },
        cache: "no-store",
        credentials: "omit",
        signal: controller.signal,
      });
      const type = (response.headers.get("Content-Type") || "").toLowerCase();
      let body = null;
      let text = "";
      if (type.startsWith("image/") || type.startsWith("application/pdf")) {
        const blob = await response.blob();
        text = "(" + blob.size + " bytes of " + type + ")";
        if (response.ok) {
          state.objectUrl = URL.createObjectURL(blob);
          const pdf = type.startsWith("application/pdf");
          const extension = pdf ? "pdf" : type.slice("image/".length).split(";")[0].trim();
          showScreenshot(state.objectUrl, "The " + (pdf ? "PDF" : "image") + " itself (response_type=image)", pdf, "screenshot." + extension);
        }
      } else {
        text = await response.text();
        if (type.includes("json")) {
          try {
            body = JSON.parse(text);
          } catch (error) {
            body = null;
          }
        }
      }
      const elapsed = performance.now() - started;
      showSummary(response, elapsed, body);
      showHeaders(response.headers);
      showBody(body === null ? text : JSON.stringify(body, null, 2));
      if (!response.ok) {
        showError(response, body, text);
        if (body && body.ai_safety) showSafety(body.ai_safety);
        status.textContent = "Failed: HTTP " + response.status + (body && body.error ? " (" + show(body.error.code) + ")" : "") + ".";
      } else {
        if (body !== null) showJson(operation, body, target);
        else if (type.startsWith("text/")) showMarkdown(text, target);
        outcome = "done";
        const credits = response.headers.get("X-BILLING-REQUESTS");
        status.textContent = "Done: HTTP " + response.status + (credits !== null ? ", " + credits + " credit" + (credits === "1" ? "" : "s") : "") + ".";
      }
    } catch (error) {
      const reason = error && error.name === "AbortError" ? "no answer within " + REQUEST_TIMEOUT_MS / 1000 + " s" : String((error && error.message) || error);
      showError(null, null, "The request did not complete: " + reason + ".");
      status.textContent = "The request did not complete.";
    } finally {
      clearTimeout(timer);
      state.running = false;
      $("run").disabled = false;
      result.removeAttribute("aria-busy");
      result.dataset.state = outcome;
      $("result-title").focus();
    }
  }

  // --- Copying ---------------------------------------------------------------------------

  // Copies text to the clipboard; without clipboard access (an insecure origin, or permission
  // refused) selects it in the page instead, so Ctrl+C finishes the job.
  async function copyText(text, status, select) {
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied to the clipboard.";
      return;
    } catch (error) {
      // Fall through to selecting it.
    }
    select();
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    status.textContent = copied ? "Copied to the clipboard." : "Selected: press Ctrl+C (or ⌘C) to copy.";
  }

  function copyCurl() {
    return copyText($("curl").textContent, $("copy-status"), () => window.getSelection().selectAllChildren($("curl")));
  }

  function copyMarkdown() {
    const raw = $("markdown-raw");
    return copyText(raw.value, $("copy-markdown-status"), () => raw.select());
  }

  // --- Start -------------------------------------------------------------------------------

  function setUpKey() {
    const input = $("api-key");
    const session = storage("sessionStorage");
    if (session && session.getItem(KEY_STORAGE)) input.value = session.getItem(KEY_STORAGE);
    input.addEventListener("input", () => {
      if (!session) return;
      if (input.value) session.setItem(KEY_STORAGE, input.value);
      else session.removeItem(KEY_STORAGE);
    });
    $("show-key").addEventListener("change", (event) => {
      input.type = event.target.checked ? "text" : "password";
    });
  }

  async function main() {
    setUpKey();
    const status = $("load-status");
    const doc = await loadOpenApi(status);
    if (!doc) return;
    state.doc = doc;
    const servers = Array.isArray(doc.servers) ? doc.servers : [];
    state.baseUrl = String((servers[0] && servers[0].url) || window.location.origin).replace(/\/+$/, "");
    state.keyHeader = keyHeader(doc);
    const select = $("operation");
    state.families = families(tryableOperations(doc));
    for (const family of state.families.values()) {
      select.append(el("option", { value: family.id, text: family.title }));
    }
    if (!state.families.size) {
      status.textContent = "openapi.json describes no operation to try.";
      status.classList.add("error");
      return;
    }
    const session = storage("sessionStorage");
    const saved = session && session.getItem(OPERATION_STORAGE);
    if (saved && state.families.has(saved)) select.value = saved;
    select.disabled = false;
    select.addEventListener("change", showOperation);
    $("version").addEventListener("change", showVariant);
    $("form").addEventListener("change", showVariant);
    showOperation();
    $("params").disabled = false;
    $("reset-params").addEventListener("click", () => formFor(currentFamily()).rows.forEach((row) => row.reset()));
    setUpExamples();
    const filter = $("param-filter");
    filter.addEventListener("input", applyParamFilter);
    filter.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        filter.value = "";
        applyParamFilter();
      }
    });
    $("request").addEventListener("submit", run);
    $("copy-curl").addEventListener("click", copyCurl);
    $("copy-markdown").addEventListener("click", copyMarkdown);
    $("run").disabled = false;
    status.textContent = "";
    status.hidden = true;
    document.body.dataset.ready = "true";
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", main);
  } else {
    main();
  }
})();
