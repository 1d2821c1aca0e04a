// The page-side half of the readiness wait (browser/farm/readiness.py), installed with
// add_init_script so that it runs in every document before the page's own scripts. It keeps
// what the farm cannot see from outside without a round trip: the last significant DOM change,
// the page's fetch() and XMLHttpRequest calls in flight, its pending short timers and whether
// the load event's handlers have all run; the farm asks through a non-enumerable window
// property. A page that tampers with it can only make the wait last until its bound.
(() => {
  const CONFIG = /*CONFIG*/ null;
  const { key: KEY, horizon: HORIZON, quiet: QUIET, long: LONG, chain: CHAIN } = CONFIG;
  const OVERDUE = CONFIG.overdue;
  if (Object.prototype.hasOwnProperty.call(window, KEY)) return;
  const clock = () => performance.now();
  const nativeSet = window.setTimeout;
  const nativeClear = window.clearTimeout;
  const nativeClearInterval = window.clearInterval;
  const disguise = (wrapper, native) =>
    Object.defineProperty(wrapper, 'toString', { value: () => native.toString() });

  // Significant DOM changes: nodes with text or a box added or removed, text changed.
  let lastChange = clock();
  const significant = (node) => node.nodeType === 1
    ? !['SCRIPT', 'STYLE', 'LINK', 'META', 'NOSCRIPT', 'TEMPLATE'].includes(node.nodeName)
    : node.nodeType === 3 && node.data.trim() !== '';
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'characterData'
          || [...record.addedNodes].some(significant)
          || [...record.removedNodes].some(significant)) {
        lastChange = clock();
        return;
      }
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });

  // The load event: its handlers (ours runs first) and the tasks they queue at once.
  let loadedAt = null;
  window.addEventListener('load', () => nativeSet(() => { loadedAt = clock(); }, 0));

  // Short one-shot timers; a timer set by a timer's callback CHAIN links deep is a loop.
  const timers = new Map();
  let depth = 0;
  const setTimeout = function setTimeout(handler, delay, ...args) {
    const wait = Math.max(Number(delay) || 0, 0);
    const link = depth + 1;
    if (typeof handler !== 'function' || wait > HORIZON || link > CHAIN) {
      return nativeSet.apply(window, arguments);
    }
    const id = nativeSet.call(window, () => {
      timers.delete(id);
      const outer = depth;
      depth = link;
      try { handler.apply(window, args); } finally { depth = outer; }
    }, wait);
    timers.set(id, clock() + wait);
    return id;
  };
  const clearTimeout = function clearTimeout(id) {
    timers.delete(id);
    return nativeClear.call(window, id);
  };
  // Timeouts and intervals share their ids: either call cancels either.
  const clearInterval = function clearInterval(id) {
    timers.delete(id);
    return nativeClearInterval.call(window, id);
  };
  disguise(setTimeout, nativeSet);
  disguise(clearTimeout, nativeClear);
  disguise(clearInterval, nativeClearInterval);
  window.setTimeout = setTimeout;
  window.clearTimeout = clearTimeout;
  window.clearInterval = clearInterval;

  // fetch() and XMLHttpRequest calls in flight, with when they started.
  const calls = new Map();
  let nextCall = 0;
  const started = () => { const id = nextCall++; calls.set(id, clock()); return id; };
  const nativeFetch = window.fetch;
  if (nativeFetch) {
    const fetch = function fetch(...args) {
      const id = started();
      const done = () => { calls.delete(id); };
      const answer = nativeFetch.apply(this, args);
      answer.then(done, done);
      return answer;
    };
    disguise(fetch, nativeFetch);
    window.fetch = fetch;
  }
  const nativeSend = XMLHttpRequest.prototype.send;
  const send = function send(...args) {
    const id = started();
    this.addEventListener('loadend', () => { calls.delete(id); }, { once: true });
    return nativeSend.apply(this, args);
  };
  disguise(send, nativeSend);
  XMLHttpRequest.prototype.send = send;

  // What the page shows: its content, something painted, a line such as "Loading...", nothing.
  const painted = (style) => style.backgroundImage !== 'none'
    || !/^(transparent|rgba\(.*,\s*0\))$/.test(style.backgroundColor)
    || ['Top', 'Right', 'Bottom', 'Left'].some((side) =>
      parseFloat(style['border' + side + 'Width']) > 0
      && style['border' + side + 'Style'] !== 'none');
  const REPLACED = new Set(['img', 'svg', 'canvas', 'video', 'iframe', 'object', 'embed',
                            'input', 'button', 'textarea', 'select', 'picture']);
  const shows = (body) => {
    if (!body) return 'blank';
    const text = (body.innerText || '').trim();
    if (text.length >= CONFIG.sparse) return 'content';
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_ELEMENT);
    for (let seen = 0, el = walker.nextNode(); el && seen < CONFIG.scan;
         el = walker.nextNode(), seen++) {
      const rect = el.getBoundingClientRect();
      if (rect.width < 1 || rect.height < 1) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || style.opacity === '0') continue;
      if (REPLACED.has(el.localName) || painted(style)) return text ? 'sparse' : 'painted';
    }
    return text ? 'sparse' : 'blank';
  };

  Object.defineProperty(window, KEY, {
    enumerable: false,
    value: () => {
      const now = clock();
      let pending = 0;
      let soon = 0;
      for (const [id, due] of timers) {
        // Long overdue: its callback will not run (a busy page, a cleared id): forget it.
        if (due - now < -OVERDUE) { timers.delete(id); continue; }
        if (due - now <= HORIZON) pending++;
        if (due - now <= QUIET) soon++;
      }
      let inFlight = 0;
      for (const since of calls.values()) if (now - since < LONG) inFlight++;
      const since = now - lastChange;
      const loaded = loadedAt !== null;
      const unchanged = loaded && lastChange <= loadedAt;
      // Calm: loaded, nothing under way in the page, no change since the load or for a while.
      const calm = loaded && inFlight === 0 && soon === 0 && (unchanged || since >= QUIET);
      return {
        scripted: document.scripts.length > 0 || window.frames.length > 0,
        calm,
        unchanged,
        timers: pending,
        calls: inFlight,
        shows: calm ? shows(document.body) : null,
      };
    },
  });
})();
