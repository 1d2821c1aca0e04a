// Shared by Pagecast's own pages (/docs and the playground): DOM building without HTML parsing,
// and reading the OpenAPI document. Loaded before each page's script, it defines one global,
// window.PagecastPage; text is only ever placed with textContent or as an attribute value.
"use strict";

(function () {
  // How the parameter tables spell a lenient boolean in the document.
  const BOOLEAN_ENUM = ["true", "false", "1", "0"];

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === "className") node.className = value;
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    return append(node, children);
  }

  // Text with `code` spans (the only markup the API descriptions use), built without HTML parsing.
  function richText(text) {
    const fragment = document.createDocumentFragment();
    String(text || "").split("`").forEach((part, index) => {
      if (part) fragment.append(index % 2 ? el("code", { text: part }) : document.createTextNode(part));
    });
    return fragment;
  }

  // The node a local JSON pointer ("#/components/schemas/Name") names; undefined if none.
  function pointer(doc, ref) {
    if (typeof ref !== "string" || !ref.startsWith("#/")) return undefined;
    let node = doc;
    for (const raw of ref.slice(2).split("/")) {
      const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (node === null || typeof node !== "object" || !(key in node)) return undefined;
      node = node[key];
    }
    return node;
  }

  // Follows $refs (at most 10, so a cycle cannot hang the page).
  function deref(doc, value) {
    for (let seen = 0; value && typeof value === "object" && typeof value.$ref === "string" && seen < 10; seen += 1) {
      const target = pointer(doc, value.$ref);
      if (target === undefined) break;
      value = target;
    }
    return value;
  }

  function isBooleanEnum(schema) {
    return (
      Array.isArray(schema.enum) &&
      schema.enum.length === BOOLEAN_ENUM.length &&
      schema.enum.every((value, i) => value === BOOLEAN_ENUM[i])
    );
  }

  // The OpenAPI document of this origin, or null after saying why in the status element.
  async function loadOpenApi(status) {
    try {
      const response = await fetch("openapi.json", { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error("HTTP " + response.status);
      return await response.json();
    } catch (error) {
      status.textContent = "Could not load openapi.json: " + error.message;
      status.classList.add("error");
      return null;
    }
  }

  window.PagecastPage = Object.freeze({ append, el, richText, pointer, deref, isBooleanEnum, loadOpenApi });
})();
