// Pagecast API reference: fetches openapi.json from this origin and renders it as plain DOM.
// API text is only ever placed with textContent (never parsed as HTML); the page's
// Content-Security-Policy allows no inline script or style, so styling is done with classes.
"use strict";

(function () {
  const { append, el, richText, deref, isBooleanEnum, loadOpenApi } = window.PagecastPage;
  const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
  const GROUPS = [
    { name: "Markdown", test: (path) => /\/markdown(\/|$)/.test(path) },
    { name: "oEmbed", test: (path) => /\/oembed(\/|$)/.test(path) },
    { name: "Screenshot", test: (path) => /\/screenshots?(\/|$)/.test(path) },
    { name: "Sites and jobs", test: (path) => /\/(map|batch|crawl|jobs)(\/|$)/.test(path) },
  ];
  const OTHER_GROUP = "Health and other";
  const LENIENT = /Allowed: ([^;]+); anything else means the default\./;
  const ALIAS = /^Alias of `([^`]+)`/;

  // Filter index: one entry per rendered operation, and each group's contents entry.
  const operations = [];
  const groupTocItems = new Map();
  // Every operation by its operationId: {method, path, pathItem, operation}.
  const byOperationId = new Map();

  // --- DOM helpers -------------------------------------------------------------------------

  function slug(text) {
    return String(text).toLowerCase().replace(/[^a-z0-9_]+/g, "-").replace(/^-+|-+$/g, "");
  }

  // A path that may wrap only after its slashes.
  function breakablePath(path) {
    return path.split("/").map((part, i) => (i ? [el("wbr", {}), "/" + part] : part));
  }

  function scrollBox(table) {
    return el("div", { className: "scroll" }, table);
  }

  function table(headings, rows, className) {
    const head = el("thead", {}, el("tr", {}, headings.map((h) => el("th", { scope: "col", text: h }))));
    return scrollBox(el("table", { className }, head, el("tbody", {}, rows)));
  }

  // --- OpenAPI helpers ---------------------------------------------------------------------

  function schemaName(ref) {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref || "");
    return match ? match[1] : null;
  }

  function schemaAnchor(name) {
    return "schema-" + slug(name);
  }

  function show(value) {
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  // A short type label; $refs become links to the schemas section.
  function typeNode(schema) {
    schema = schema || {};
    if (schema.$ref) {
      const name = schemaName(schema.$ref);
      if (name) return el("a", { href: "#" + schemaAnchor(name), className: "schema-link", text: name });
      return document.createTextNode(schema.$ref);
    }
    return document.createTextNode(typeText(schema));
  }

  function typeText(schema) {
    if (!schema || typeof schema !== "object") return "any";
    if (schema.$ref) return schemaName(schema.$ref) || schema.$ref;
    if (isBooleanEnum(schema)) return "boolean";
    if ("const" in schema) return "const " + show(schema.const);
    let type = Array.isArray(schema.type) ? schema.type.join(" | ") : schema.type;
    if (!type && Array.isArray(schema.enum)) type = "enum";
    if (!type) return "any";
    if (type === "array" && schema.items) type = "array of " + typeText(schema.items);
    if (schema.format) type += " (" + schema.format + ")";
    return type;
  }

  function rangeText(schema) {
    const low = schema.minimum ?? schema.exclusiveMinimum;
    const high = schema.maximum ?? schema.exclusiveMaximum;
    if (low !== undefined && high !== undefined) return low + "–" + high;
    if (low !== undefined) return "≥ " + low;
    if (high !== undefined) return "≤ " + high;
    return null;
  }

  // The range, enum, pattern and length rules of a parameter, one line each.
  function constraintNodes(param, schema) {
    const lines = [];
    const range = rangeText(schema);
    if (range) lines.push(el("span", { className: "range", text: range }));
    if (isBooleanEnum(schema)) {
      lines.push(el("span", { className: "enum" }, "true or false (also 1 or 0)"));
    } else if (Array.isArray(schema.enum)) {
      lines.push(enumNode(schema.enum.map(show), false));
    } else {
      const lenient = LENIENT.exec(param.description || "");
      if (lenient) lines.push(enumNode(lenient[1].split(/,\s*/), true));
    }
    if (schema.pattern) {
      lines.push(el("span", { className: "pattern" }, "pattern ", el("code", { text: schema.pattern })));
    }
    if (schema.maxLength !== undefined) lines.push("max length " + schema.maxLength);
    if (schema.maxItems !== undefined) lines.push("at most " + schema.maxItems + " items");
    const items = schema.items || {};
    if (items.maxLength !== undefined) lines.push("each at most " + items.maxLength + " characters");
    if (schema.minLength !== undefined) lines.push("min length " + schema.minLength);
    if (!lines.length) return ["—"];
    return lines.map((line) => el("div", {}, line));
  }

  function enumNode(values, lenient) {
    return el(
      "span",
      { className: "enum" },
      "one of ",
      values.map((value, i) => [i ? ", " : "", el("code", { text: value })]),
      lenient ? " (anything else means the default)" : ""
    );
  }

  function defaultNode(schema) {
    if (!("default" in schema)) return "—";
    return el("code", { text: show(schema.default) });
  }

  function groupOf(path, operation) {
    if (Array.isArray(operation.tags) && operation.tags.length) return operation.tags[0];
    const group = GROUPS.find((g) => g.test(path));
    return group ? group.name : OTHER_GROUP;
  }

  function operationAnchor(method, path, operation) {
    return "op-" + slug(operation.operationId || method + " " + path);
  }

  // Path-level parameters, overridden by the operation's own (same name and location).
  function parametersOf(doc, pathItem, operation) {
    const merged = new Map();
    for (const raw of [...(pathItem.parameters || []), ...(operation.parameters || [])]) {
      const param = deref(doc, raw);
      if (param && param.name) merged.set(param.in + ":" + param.name, param);
    }
    return [...merged.values()];
  }

  // The JSON request body's fields, as rows of the parameter table ("in": body).
  function bodyParameters(doc, operation) {
    const body = deref(doc, operation.requestBody) || {};
    const media = (body.content || {})["application/json"];
    if (!media) return [];
    const schema = deref(doc, media.schema) || {};
    const needed = new Set(schema.required || []);
    return Object.entries(schema.properties || {}).map(([name, raw]) => {
      const property = deref(doc, raw) || {};
      const examples = Array.isArray(property.examples) ? property.examples : [];
      return {
        name,
        in: "body",
        required: needed.has(name),
        description: property.description,
        schema: property,
        example: examples.length ? examples[0] : undefined,
      };
    });
  }

  // The example body of an operation that takes JSON: its own example, else its required
  // fields with their examples.
  function bodyExample(doc, operation, params) {
    const body = deref(doc, operation.requestBody) || {};
    const media = (body.content || {})["application/json"];
    if (!media) return null;
    if (media.example !== undefined) return media.example;
    const example = {};
    for (const param of params) {
      if (param.in === "body" && param.required) example[param.name] = param.example ?? "VALUE";
    }
    return example;
  }

  // --- Rendering ---------------------------------------------------------------------------

  // One row per parameter: its name with where it goes, its type and whether it is required
  // beside it, so the description keeps most of the width.
  function parameterTable(doc, params, anchor) {
    if (!params.length) return el("p", { className: "muted", text: "No parameters." });
    const rows = params.map((param) => {
      const schema = deref(doc, param.schema) || {};
      const alias = ALIAS.exec(param.description || "");
      const nameCell = el(
        "td",
        { className: "name" },
        el("code", { text: param.name }),
        alias ? el("span", { className: "badge alias", text: "alias" }) : null,
        param.deprecated ? el("span", { className: "badge deprecated", text: "deprecated" }) : null,
        " ",
        el(
          "div",
          { className: "meta" },
          el("span", { className: "in", text: param.in }),
          " · ",
          el("span", { className: "type" }, typeNode(schema)),
          param.required ? [" · ", el("span", { className: "required", text: "required" })] : null
        )
      );
      const description = el("td", { className: "description" }, richText(param.description));
      if (param.example !== undefined) {
        append(description, [el("div", { className: "example" }, "Example: ", el("code", { text: show(param.example) }))]);
      }
      return el(
        "tr",
        {
          id: anchor + "-" + slug(param.in) + "-" + slug(param.name),
          "data-param": param.name,
          "data-in": param.in,
          className: alias ? "alias-row" : null,
        },
        nameCell,
        el("td", { className: "default" }, defaultNode(schema)),
        el("td", { className: "constraints" }, constraintNodes(param, schema)),
        description
      );
    });
    return table(["Name", "Default", "Range / values", "Description"], rows, "params");
  }

  function statusOrder(code) {
    if (code === "default") return 1000;
    const number = parseInt(String(code).replace(/X/gi, "0"), 10);
    return Number.isNaN(number) ? 999 : number;
  }

  // The name of a shared component ("#/components/<kind>/<name>") a value refers to, else null.
  function sharedName(raw, kind) {
    const prefix = "#/components/" + kind + "/";
    return raw && typeof raw.$ref === "string" && raw.$ref.startsWith(prefix) ? raw.$ref.slice(prefix.length) : null;
  }

  function headerItem(doc, name, header) {
    return el(
      "li",
      {},
      el("code", { text: name }),
      " ",
      el("span", { className: "muted" }, "(", typeNode(deref(doc, header.schema) || {}), ")"),
      header.description ? [" — ", richText(header.description)] : null
    );
  }

  // The operation's own answers, one row each; the headers every answer shares and the shared
  // error answers are described once (#headers, #errors) and only named here.
  function responsesBlock(doc, responses) {
    const codes = Object.keys(responses || {}).sort((a, b) => statusOrder(a) - statusOrder(b));
    const own = codes.filter((code) => !sharedName(responses[code], "responses"));
    if (!own.length) return el("p", { className: "muted", text: "No responses described." });
    const rows = own.map((code) => {
      const response = deref(doc, responses[code]) || {};
      const entries = Object.entries(response.headers || {});
      const common = entries.some(([, raw]) => sharedName(raw, "headers"));
      const headers = entries
        .filter(([, raw]) => !sharedName(raw, "headers"))
        .map(([name, raw]) => headerItem(doc, name, deref(doc, raw) || {}));
      if (common) headers.unshift(el("li", { className: "common-headers" }, el("a", { href: "#headers", text: "The common headers" })));
      const content = Object.entries(response.content || {}).map(([media, body]) =>
        el("li", {}, el("code", { text: media }), " → ", typeNode((body && body.schema) || {}))
      );
      const kind = statusOrder(code) < 300 ? "ok" : statusOrder(code) < 400 ? "redirect" : "error";
      return el(
        "tr",
        { "data-status": code },
        el("td", {}, el("span", { className: "status-code " + kind, text: code })),
        el("td", { className: "description" }, richText(response.description)),
        el("td", {}, content.length ? el("ul", { className: "plain" }, content) : "—"),
        el("td", {}, headers.length ? el("ul", { className: "plain" }, headers) : "—")
      );
    });
    return table(["Status", "Description", "Body", "Headers"], rows, "responses");
  }

  // The error bodies an operation describes: one example per error kind (its meaning as the
  // summary), taken from the JSON content of its 4xx and 5xx responses.
  function errorExamples(doc, operation) {
    const found = [];
    for (const [status, raw] of Object.entries(operation.responses || {})) {
      if (statusOrder(status) < 400) continue;
      const response = deref(doc, raw) || {};
      const media = (response.content || {})["application/json"] || {};
      for (const [name, rawExample] of Object.entries(media.examples || {})) {
        const example = deref(doc, rawExample) || {};
        const value = example.value;
        if (!value || typeof value !== "object" || !value.error || typeof value.error !== "object") continue;
        found.push({ name, status, code: value.error.code, stage: value.error.stage, meaning: example.summary || value.error.message || "", value });
      }
    }
    return found.sort((a, b) => statusOrder(a.status) - statusOrder(b.status) || String(a.code).localeCompare(String(b.code)));
  }

  // The preferred example body: a missing key, which every keyed operation can answer.
  const EXAMPLE_ERROR = "unauthorized";

  // The operation's error statuses in one line, its codes and an example body folded beneath.
  function errorsBlock(examples) {
    if (!examples.length) return null;
    // The Markdown shape has no stage: its table has no such column.
    const staged = examples.some((example) => example.stage);
    const statuses = [...new Set(examples.map((example) => example.status))];
    const rows = examples.map((example) =>
      el(
        "tr",
        { "data-error": example.name },
        el("td", {}, el("span", { className: "status-code error", text: example.status })),
        el("td", {}, el("code", { text: show(example.code) })),
        staged ? el("td", { text: example.stage || "—" }) : null,
        el("td", { className: "description", text: example.meaning })
      )
    );
    const sample = examples.find((example) => example.name === EXAMPLE_ERROR) || examples[0];
    return el(
      "details",
      { className: "error-codes", "data-shape": staged ? "oembed" : "markdown" },
      el(
        "summary",
        {},
        statuses.map((status, i) => [i ? " " : "", el("span", { className: "status-code error", text: status })]),
        " — " + examples.length + " error codes in the " + (staged ? "oEmbed" : "Markdown") + " shape"
      ),
      el("p", {}, "Each is described once under ", el("a", { href: "#errors", text: "Errors" }), "."),
      table(staged ? ["Status", "Code", "Stage", "Meaning"] : ["Status", "Code", "Meaning"], rows, "error-table"),
      el("p", { className: "example-title" }, "Example error body (", el("code", { text: sample.name }), "):"),
      el("pre", { className: "example-body" }, el("code", { text: JSON.stringify(sample.value, null, 2) }))
    );
  }

  // The first successful answer's example body for each of its media types; a line instead
  // when the answer has no body or only a binary one.
  function successBlock(doc, responses) {
    const code = Object.keys(responses || {})
      .filter((status) => statusOrder(status) < 300)
      .sort((a, b) => statusOrder(a) - statusOrder(b))[0];
    if (code === undefined) return null;
    const response = deref(doc, responses[code]) || {};
    const media = Object.entries(response.content || {});
    const shown = media.filter(([, body]) => body && body.example !== undefined);
    const status = () => el("span", { className: "status-code ok", text: code });
    if (!shown.length) {
      const binary = media.map(([type]) => type);
      const text = binary.length ? " the file itself, as " + binary.join(", ") + "." : " no body.";
      return el("p", { className: "success-example", "data-status": code }, status(), text);
    }
    // A text body (Markdown, HTML) wraps its lines; JSON keeps its indentation and scrolls.
    return shown.map(([type, body]) => {
      const text = typeof body.example === "string";
      return el(
        "div",
        { className: "success-example", "data-status": code, "data-media": type },
        el("p", { className: "example-title" }, status(), " ", el("code", { text: type })),
        el(
          "pre",
          { className: "example-body" + (text ? " text" : "") },
          el("code", { text: text ? body.example : JSON.stringify(body.example, null, 2) })
        )
      );
    });
  }

  function securityRequirements(doc, operation) {
    const requirements = operation.security !== undefined ? operation.security : doc.security;
    const schemes = (doc.components && doc.components.securitySchemes) || {};
    const names = [];
    for (const requirement of requirements || []) {
      for (const name of Object.keys(requirement || {})) {
        if (!names.includes(name)) names.push(name);
      }
    }
    return names.map((name) => ({ name, scheme: deref(doc, schemes[name]) || {} }));
  }

  function securityLine(requirements) {
    if (!requirements.length) {
      return el("p", { className: "auth" }, el("strong", { text: "Authentication: " }), "none.");
    }
    const parts = requirements.map(({ name, scheme }, i) => [
      i ? " or " : "",
      el("a", { href: "#security-" + slug(name) }, el("code", { text: name })),
      scheme.type === "apiKey" ? " (" + scheme.in + " " + scheme.name + ")" : "",
    ]);
    return el("p", { className: "auth" }, el("strong", { text: "Authentication: " }), parts, ".");
  }

  // The path parameter's example in URL-encoded form, whether or not the example already is.
  function encodedExample(value) {
    const text = String(value);
    try {
      return encodeURIComponent(decodeURIComponent(text));
    } catch (error) {
      return encodeURIComponent(text);
    }
  }

  // The shell variable the examples read the key from, in a header so it stays out of URLs
  // and logs.
  const KEY_VARIABLE = "$PAGECAST_API_KEY";

  // The header that carries the key: the first header scheme the operation accepts (api-key),
  // else Authorization: Bearer; null when it takes the key in the query only (or none).
  function keyHeader(requirements) {
    const named = requirements.find(({ scheme }) => scheme.type === "apiKey" && scheme.in === "header");
    if (named) return named.scheme.name + ": " + KEY_VARIABLE;
    const bearer = requirements.find(({ scheme }) => scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer");
    return bearer ? "Authorization: Bearer " + KEY_VARIABLE : null;
  }

  // A curl command, one option a line: the key in a header, the required parameters (and the
  // target URL when the path does not carry it) in the query, the JSON body with -d.
  function curlCommand(baseUrl, method, path, params, requirements, body) {
    const byPath = new Map(params.filter((p) => p.in === "path").map((p) => [p.name, p]));
    const target = path.replace(/\{([^}]+)\}/g, (whole, name) => {
      const param = byPath.get(name);
      if (param && param.example !== undefined) return encodedExample(param.example);
      // A placeholder without braces, which curl would read as a URL glob.
      return name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
    });
    const inQuery = requirements.filter(({ scheme }) => scheme.type === "apiKey" && scheme.in === "query");
    const keyParams = new Set(inQuery.map(({ scheme }) => scheme.name));
    const header = keyHeader(requirements);
    const query = [];
    // Only an operation that takes its key in the query alone gets it there.
    if (!header && inQuery.length) query.push(encodeURIComponent(inQuery[0].scheme.name) + "=YOUR_KEY");
    for (const param of params) {
      if (param.in !== "query" || keyParams.has(param.name)) continue;
      // Required parameters, and the target URL when the path does not carry it.
      const wanted = param.required || (param.name === "url" && !byPath.size);
      if (!wanted) continue;
      const value = param.example !== undefined ? show(param.example) : "VALUE";
      query.push(encodeURIComponent(param.name) + "=" + encodeURIComponent(value));
    }
    const url = baseUrl + target + (query.length ? "?" + query.join("&") : "");
    const parts = ["curl"];
    if (method !== "get") parts.push("-X " + method.toUpperCase());
    if (header) parts.push('-H "' + header + '"');
    if (body !== null) {
      parts.push("-H 'Content-Type: application/json'");
      parts.push("-d '" + JSON.stringify(body).replace(/'/g, "'\\''") + "'");
    }
    parts.push("'" + url.replace(/'/g, "%27") + "'");
    return parts.length > 2 ? parts[0] + " " + parts.slice(1).join(" \\\n  ") : parts.join(" ");
  }

  // The operation another one is a form of (x-variant-of: the same parameters and answers but
  // for the parameters that differ), as rendered; null when it names none or an unknown one.
  function variantBase(operation) {
    const name = operation["x-variant-of"];
    return (name && byOperationId.get(name)) || null;
  }

  // The operation whose parameters another one shares (x-parameters-of: its own answers, but
  // the other's parameters but for those it lists apart); null when it names none.
  function parametersBase(operation) {
    const name = operation["x-parameters-of"];
    return (name && byOperationId.get(name)) || null;
  }

  function paramKey(param) {
    return param.in + ":" + param.name;
  }

  // A variant's parameters that its base does not have, or has with another requiredness.
  function ownParameters(doc, params, base) {
    const baseParams = new Map(parametersOf(doc, base.pathItem, base.operation).map((p) => [paramKey(p), p]));
    return params.filter((param) => {
      const other = baseParams.get(paramKey(param));
      return !other || Boolean(other.required) !== Boolean(param.required);
    });
  }

  function operationLink(entry) {
    return el(
      "a",
      { href: "#" + operationAnchor(entry.method, entry.path, entry.operation) },
      entry.method.toUpperCase() + " ",
      el("code", { text: entry.path })
    );
  }

  function variantDetails(doc, params, base, anchor) {
    const own = ownParameters(doc, params, base);
    const note = el("p", { className: "variant-of" }, "The parameters, answers and errors of ", operationLink(base));
    if (!own.length) return append(note, ["."]);
    append(note, [", but for the parameters below."]);
    return [note, el("h4", { text: "Parameters" }), parameterTable(doc, own, anchor)];
  }

  function operationCard(doc, baseUrl, method, path, pathItem, operation, group) {
    const anchor = operationAnchor(method, path, operation);
    const params = [...parametersOf(doc, pathItem, operation), ...bodyParameters(doc, operation)];
    const requirements = securityRequirements(doc, operation);
    const body = bodyExample(doc, operation, params);
    const curl = curlCommand(baseUrl, method, path, params, requirements, body);
    const base = variantBase(operation);
    const shared = base ? null : parametersBase(operation);
    const parameters = shared
      ? [
          el("h4", { text: "Parameters" }),
          el("p", { className: "variant-of" }, "The parameters of ", operationLink(shared), ", but for those below."),
          parameterTable(doc, ownParameters(doc, params, shared), anchor),
        ]
      : [el("h4", { text: "Parameters" }), parameterTable(doc, params, anchor)];
    const details = base
      ? variantDetails(doc, params, base, anchor)
      : [
          ...parameters,
          el("h4", { text: "Responses" }),
          responsesBlock(doc, operation.responses),
          errorsBlock(errorExamples(doc, operation)),
        ];
    const card = el(
      "section",
      { className: "operation", id: anchor, "data-operation-id": operation.operationId || anchor },
      el(
        "h3",
        {},
        el("span", { className: "method " + method, text: method.toUpperCase() }),
        " ",
        el("code", { className: "path", text: path }),
        el("a", { className: "anchor", href: "#" + anchor, "aria-label": "Link to this operation", text: "#" })
      ),
      operation.summary ? el("p", { className: "summary" }, richText(operation.summary)) : null,
      operation.description ? el("p", { className: "op-description" }, richText(operation.description)) : null,
      operation.deprecated ? el("p", { className: "badge deprecated", text: "deprecated" }) : null,
      securityLine(requirements),
      details,
      el("h4", { text: "Example request" }),
      el("pre", { className: "curl" }, el("code", { text: curl })),
      el("h4", { text: "Example answer" }),
      // A variant answers as its base does: its example is folded, the base's shown open.
      base
        ? el("details", { className: "variant-example" }, el("summary", { text: "The same answer as the operation it is a form of" }), successBlock(doc, operation.responses))
        : successBlock(doc, operation.responses)
    );
    const words = [
      group,
      method,
      path,
      operation.operationId,
      operation.summary,
      operation.description,
      ...params.map((p) => p.name + " " + (p.description || "")),
    ];
    operations.push({ card, group, anchor, text: words.filter(Boolean).join(" ").toLowerCase() });
    return card;
  }

  // Flattened property rows of one schema: nested object properties get dotted names.
  function schemaRows(doc, schema, prefix, depth, rows) {
    schema = deref(doc, schema) || {};
    const properties = schema.properties || {};
    const needed = new Set(schema.required || []);
    for (const [name, raw] of Object.entries(properties)) {
      const property = raw || {};
      const resolved = property.$ref ? property : deref(doc, property) || {};
      const notes = [];
      if (Array.isArray(resolved.enum)) notes.push(enumNode(resolved.enum.map(show), false));
      if (resolved.description) notes.push(richText(resolved.description));
      rows.push(
        el(
          "tr",
          { "data-property": prefix + name },
          el("td", { className: "name" }, el("code", { text: prefix + name })),
          el("td", {}, typeNode(resolved)),
          el("td", { className: needed.has(name) ? "required" : "optional", text: needed.has(name) ? "yes" : "no" }),
          el("td", { className: "description" }, notes.length ? notes.map((n) => el("div", {}, n)) : "—")
        )
      );
      if (!property.$ref && resolved.properties && depth < 4) {
        schemaRows(doc, resolved, prefix + name + ".", depth + 1, rows);
      }
    }
    return rows;
  }

  function schemasSection(doc) {
    const schemas = (doc.components && doc.components.schemas) || {};
    const names = Object.keys(schemas);
    if (!names.length) return null;
    return el(
      "section",
      { className: "group", id: "schemas" },
      el("h2", {}, "Schemas", el("a", { className: "anchor", href: "#schemas", "aria-label": "Link to schemas", text: "#" })),
      names.map((name) => {
        const schema = deref(doc, schemas[name]) || {};
        const rows = schemaRows(doc, schema, "", 0, []);
        // Folded: the operations link here (a link opens it), and the browser's find opens
        // the one that holds what it found.
        return el(
          "section",
          { className: "schema", id: schemaAnchor(name), "data-schema": name },
          el(
            "details",
            {},
            el(
              "summary",
              {},
              el("h3", {}, el("code", { text: name }), " ", el("span", { className: "muted", text: typeText(schema) + (rows.length ? ", " + rows.length + " properties" : "") }))
            ),
            schema.description ? el("p", {}, richText(schema.description)) : null,
            rows.length
              ? table(["Property", "Type", "Required", "Notes"], rows, "properties")
              : el("p", { className: "muted", text: "No declared properties." })
          )
        );
      })
    );
  }

  // One example body of each error shape (a missing key), from the shared examples.
  function shapeExamples(doc) {
    const examples = (doc.components && doc.components.examples) || {};
    return ["oembed", "markdown"].map((shape) => {
      const example = deref(doc, examples[shape + "_" + EXAMPLE_ERROR]);
      if (!example || example.value === undefined) return null;
      return el(
        "div",
        { className: "shape-example", "data-shape": shape },
        el("p", { className: "example-title" }, (shape === "oembed" ? "oEmbed" : "Markdown") + " shape (", el("code", { text: EXAMPLE_ERROR }), "):"),
        el("pre", { className: "example-body" }, el("code", { text: JSON.stringify(example.value, null, 2) }))
      );
    });
  }

  // Every error kind once, with its code in each error shape (the oEmbed shape's string codes,
  // the Markdown shape's integers), gathered from the operations' examples.
  function errorsSection(doc) {
    const kinds = new Map();
    for (const rawItem of Object.values(doc.paths || {})) {
      const pathItem = deref(doc, rawItem) || {};
      for (const method of METHODS) {
        if (!pathItem[method]) continue;
        for (const example of errorExamples(doc, pathItem[method])) {
          if (!kinds.has(example.name)) kinds.set(example.name, { status: example.status, meaning: example.meaning, stage: null, codes: {} });
          const kind = kinds.get(example.name);
          const shape = typeof example.code === "number" ? "markdown" : "oembed";
          kind.codes[shape] = example.code;
          if (example.stage) kind.stage = example.stage;
        }
      }
    }
    if (!kinds.size) return null;
    const sorted = [...kinds.entries()].sort((a, b) => statusOrder(a[1].status) - statusOrder(b[1].status) || a[0].localeCompare(b[0]));
    const rows = sorted.map(([name, kind]) =>
      el(
        "tr",
        { "data-error": name },
        el("td", {}, el("span", { className: "status-code error", text: kind.status })),
        el("td", {}, kind.codes.oembed === undefined ? "—" : el("code", { text: show(kind.codes.oembed) })),
        el("td", {}, kind.codes.markdown === undefined ? "—" : el("code", { text: show(kind.codes.markdown) })),
        el("td", { text: kind.stage || "—" }),
        el("td", { className: "description", text: kind.meaning })
      )
    );
    return el(
      "section",
      { className: "group", id: "errors" },
      el("h2", {}, "Errors", el("a", { className: "anchor", href: "#errors", "aria-label": "Link to errors", text: "#" })),
      el(
        "p",
        {},
        "Every error is answered as JSON and bills nothing. Markdown answers ",
        el("code", { text: '{"error": {"code", "message"}, "request_id"}' }),
        " with an integer code; oEmbed, screenshots and frames answer ",
        el("code", { text: '{"success": false, "error": {"code", "message", "stage", "details"}}' }),
        ". Each operation lists its statuses and, folded, its codes with an example body."
      ),
      table(["Status", "oEmbed, screenshot, frames", "Markdown", "Stage", "Meaning"], rows, "error-table"),
      shapeExamples(doc)
    );
  }

  // The headers the answers share (components.headers), once: each answer that carries them
  // links here.
  function headersSection(doc) {
    const headers = (doc.components && doc.components.headers) || {};
    const names = Object.keys(headers);
    if (!names.length) return null;
    const rows = names.map((name) => {
      const header = deref(doc, headers[name]) || {};
      return el(
        "tr",
        { "data-header": name },
        el("td", { className: "name" }, el("code", { text: name })),
        el("td", {}, typeNode(deref(doc, header.schema) || {})),
        el("td", { className: "description" }, header.description ? richText(header.description) : "—")
      );
    });
    return el(
      "section",
      { className: "group", id: "headers" },
      el("h2", {}, "Common response headers", el("a", { className: "anchor", href: "#headers", "aria-label": "Link to common response headers", text: "#" })),
      el("p", {}, "Described here once: the answers that carry them say so under Headers (", el("em", { text: "The common headers" }), ") beside the headers of their own; every error answer carries them."),
      table(["Header", "Type", "Meaning"], rows, "headers")
    );
  }

  function securitySection(doc) {
    const schemes = (doc.components && doc.components.securitySchemes) || {};
    const names = Object.keys(schemes);
    if (!names.length) return null;
    const rows = names.map((name) => {
      const scheme = deref(doc, schemes[name]) || {};
      let how = scheme.type || "";
      if (scheme.type === "apiKey") {
        how = scheme.in === "query" ? "query parameter " : scheme.in === "header" ? "request header " : scheme.in + " ";
      }
      return el(
        "tr",
        { id: "security-" + slug(name), "data-scheme": name },
        el("td", { className: "name" }, el("code", { text: name })),
        el("td", { text: scheme.type || "" }),
        el("td", {}, how, scheme.name ? el("code", { text: scheme.name }) : null),
        el("td", { className: "description" }, scheme.description ? richText(scheme.description) : "—")
      );
    });
    return el(
      "section",
      { className: "group", id: "security" },
      el("h2", {}, "Authentication", el("a", { className: "anchor", href: "#security", "aria-label": "Link to authentication", text: "#" })),
      el("p", {}, "Operations that need a key accept any one of these schemes."),
      table(["Scheme", "Type", "Sent as", "Description"], rows, "security")
    );
  }

  function renderIntro(doc, baseUrl) {
    const info = doc.info || {};
    const title = (info.title || "API") + " API reference";
    document.title = title;
    document.getElementById("title").textContent = title;
    const intro = document.getElementById("intro");
    intro.textContent = "";
    append(intro, [
      info.description ? richText(info.description) : null,
      info.version ? " Version " + info.version + "." : null,
      " Base URL ",
      el("code", { text: baseUrl || "(this server)" }),
      ". Machine-readable: ",
      el("a", { href: "openapi.json", text: "openapi.json" }),
      "; for language-model agents: ",
      el("a", { href: "llms.txt", text: "llms.txt" }),
      ".",
    ]);
  }

  function render(doc) {
    const servers = Array.isArray(doc.servers) ? doc.servers : [];
    const baseUrl = String((servers[0] && servers[0].url) || window.location.origin).replace(/\/+$/, "");
    renderIntro(doc, baseUrl);

    const groups = new Map();
    for (const group of GROUPS) groups.set(group.name, []);
    for (const [path, rawItem] of Object.entries(doc.paths || {})) {
      const pathItem = deref(doc, rawItem) || {};
      for (const method of METHODS) {
        const operation = pathItem[method];
        if (!operation) continue;
        const group = groupOf(path, operation);
        if (!groups.has(group)) groups.set(group, []);
        const entry = { method, path, pathItem, operation };
        groups.get(group).push(entry);
        if (operation.operationId) byOperationId.set(operation.operationId, entry);
      }
    }
    // The catch-all group goes last, after any tag-named groups.
    if (groups.has(OTHER_GROUP)) {
      const other = groups.get(OTHER_GROUP);
      groups.delete(OTHER_GROUP);
      groups.set(OTHER_GROUP, other);
    }

    const content = document.getElementById("content");
    const toc = document.getElementById("toc-list");
    content.textContent = "";
    toc.textContent = "";
    const tocList = el("ul", {});
    toc.append(el("p", { className: "toc-title", text: "Contents" }), tocList);

    for (const [group, entries] of groups) {
      if (!entries.length) continue;
      const groupId = "group-" + slug(group);
      const section = el(
        "section",
        { className: "group", id: groupId, "data-group": group },
        el("h2", {}, group, el("a", { className: "anchor", href: "#" + groupId, "aria-label": "Link to " + group, text: "#" }))
      );
      const links = el("ul", {});
      for (const { method, path, pathItem, operation } of entries) {
        const card = operationCard(doc, baseUrl, method, path, pathItem, operation, group);
        section.append(card);
        const link = el(
          "li",
          { "data-target": card.id },
          el(
            "a",
            { href: "#" + card.id },
            el("span", { className: "method small " + method, text: method.toUpperCase() }),
            el("span", { className: "toc-path" }, breakablePath(path))
          )
        );
        links.append(link);
      }
      const tocItem = el("li", { "data-target": groupId }, el("a", { href: "#" + groupId, text: group }), links);
      groupTocItems.set(section, tocItem);
      tocList.append(tocItem);
      content.append(section);
    }
    const headers = headersSection(doc);
    if (headers) {
      content.append(headers);
      tocList.append(el("li", {}, el("a", { href: "#headers", text: "Common response headers" })));
    }
    const errors = errorsSection(doc);
    if (errors) {
      content.append(errors);
      tocList.append(el("li", {}, el("a", { href: "#errors", text: "Errors" })));
    }
    const security = securitySection(doc);
    if (security) {
      content.append(security);
      tocList.append(el("li", {}, el("a", { href: "#security", text: "Authentication" })));
    }
    const schemas = schemasSection(doc);
    if (schemas) {
      content.append(schemas);
      tocList.append(el("li", {}, el("a", { href: "#schemas", text: "Schemas" })));
    }
    content.append(el("p", { id: "no-match", className: "status", hidden: true, text: "No operation matches the filter." }));
  }

  // --- Filter ------------------------------------------------------------------------------

  function applyFilter(input) {
    const terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const entry of operations) {
      const visible = terms.every((term) => entry.text.includes(term));
      entry.card.hidden = !visible;
      const link = document.querySelector('#toc li[data-target="' + entry.anchor + '"]');
      if (link) link.hidden = !visible;
      if (visible) shown += 1;
    }
    for (const section of document.querySelectorAll("section.group[data-group]")) {
      const visible = section.querySelector("section.operation:not([hidden])") !== null;
      section.hidden = !visible;
      const tocItem = groupTocItems.get(section);
      if (tocItem) tocItem.hidden = !visible;
    }
    document.getElementById("no-match").hidden = shown > 0;
    document.getElementById("filter-status").textContent = terms.length
      ? shown + " of " + operations.length + " operations"
      : "";
  }

  function setUpFilter() {
    const input = document.getElementById("filter");
    input.disabled = false;
    input.addEventListener("input", () => applyFilter(input));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        input.value = "";
        applyFilter(input);
      }
    });
    if (input.value) applyFilter(input);
  }

  function jumpToHash() {
    let id = window.location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch (error) {
      return;
    }
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    // A folded section opens when linked to, as does any fold around the target.
    for (const fold of target.querySelectorAll(":scope > details")) fold.open = true;
    for (let fold = target.closest("details"); fold; fold = fold.parentElement.closest("details")) fold.open = true;
    target.scrollIntoView();
  }

  async function main() {
    const doc = await loadOpenApi(document.getElementById("status"));
    if (!doc) return;
    render(doc);
    setUpFilter();
    jumpToHash();
    window.addEventListener("hashchange", jumpToHash);
    document.body.dataset.ready = "true";
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", main);
  } else {
    main();
  }
})();
