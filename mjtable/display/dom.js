// The one DOM helper of the mjtable pages (display: index.html; hawk-eye replay: replay.html, also inlined
// into an exported replay file).  el(tag, attrs, children): "class" sets className, "text" the text content,
// "on<event>" adds a listener, anything else is an attribute; null/undefined children are skipped.
"use strict";

function el(tag, attrs, children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children || []) if (c !== null && c !== undefined) e.append(c);
  return e;
}
