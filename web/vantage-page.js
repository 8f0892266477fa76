// The page glue: real .wasm download progress, visible errors, the URL hash kept in sync
// with the app's settings, and window.vantage (a small API for tests and embedding).
// The app itself (vantage.js + vantage.wasm) is emitted by Emscripten from playgrounds/app.
'use strict';
(function () {
  const canvas = document.getElementById('canvas');
  const loading = document.getElementById('loading');
  const progress = document.getElementById('progress');
  const progressText = document.getElementById('progress-text');
  const message = document.getElementById('message');
  const messageText = document.getElementById('message-text');
  document.getElementById('message-close').onclick = () => { message.hidden = true; };

  // kind: 'error' (the app cannot run) or 'warning' (something was refused; the app runs).
  function showMessage(text, kind) {
    messageText.textContent = text;
    message.className = kind || 'error';
    message.hidden = false;
    message.dataset.kind = kind || 'error';
  }
  function fail(text) {
    loading.classList.add('done');
    showMessage(text, 'error');
    window.vantageFailed = text;
  }

  // A classroom reaches the page at http://<LAN address>/, which is not a secure context, so
  // the browser offers no navigator.clipboard and "Copy link" would copy nothing. There the
  // older copy command does the job (it needs the click that the button just received).
  if (!navigator.clipboard) {
    const writeText = (text) => new Promise((ok, fail) => {
      const area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.style.cssText = 'position:fixed;top:0;left:0;opacity:0';
      document.body.appendChild(area);
      area.select();
      const copied = document.execCommand('copy');
      area.remove();
      canvas.focus();
      (copied ? ok : fail)(new Error('the browser refused to copy'));
    });
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  }

  const api = { ready: false };
  window.vantage = api;

  function call(name, ret, types, args) {
    return Module.ccall(name, ret, types || [], args || []);
  }

  function syncHash() {
    if (!api.ready) return;
    const url = call('vantage_url', 'string');
    if (url !== location.hash) history.replaceState(null, '', url);
  }

  function applyHash(hash) {
    const errors = call('vantage_apply_hash', 'string', ['string'], [hash]);
    if (errors) showMessage('Some settings in the link were not applied:\n' + errors.trim(), 'warning');
    syncHash();
  }

  function installApi() {
    api.version = () => call('vantage_version', 'string');
    api.playgrounds = () => JSON.parse(call('vantage_playgrounds', 'string'));
    api.state = () => JSON.parse(call('vantage_state', 'string'));
    api.url = () => call('vantage_url', 'string');
    // One fixed tick now, paused or not.
    api.step = () => { call('vantage_step', null); };
    // Throws an Error with the reason when the value is refused; nothing changes then.
    api.set = (name, value) => {
      const err = call('vantage_set', 'string', ['string', 'string'], [String(name), String(value)]);
      if (err) throw new Error(err);
      syncHash();
      return true;
    };
    // The page's "Copy link": the full link (playground, preset, every setting, seed).
    api.copyLink = () => { call('vantage_copy_link', 'string'); return window.vantageCopiedLink; };
    // UI scale for projectors (0.75..2.5), remembered in this browser. With no argument: read it.
    api.uiScale = (scale) => {
      if (scale === undefined) return call('vantage_ui_scale', 'number');
      const err = call('vantage_set_ui_scale', 'string', ['number'], [Number(scale)]);
      if (err) throw new Error(err);
      return true;
    };
    // Presenter mode (lanes only, no sidebar or meter table). With no argument: read it.
    api.presenter = (on) => {
      if (on === undefined) return call('vantage_presenter', 'number', ['number'], [-1]) === 1;
      return call('vantage_presenter', 'number', ['number'], [on ? 1 : 0]) === 1;
    };
    // The active playground's history as CSV (the page's "Export CSV").
    api.historyCsv = () => call('vantage_history_csv', 'string');
    // The performance overlay's numbers: simulation ms per tick, frame ms, memory bytes.
    api.perf = () => JSON.parse(call('vantage_perf', 'string'));
    // Where named parts of the UI were drawn in the last frame: {name: [x0, y0, x1, y1]} in
    // CSS pixels (the lanes' worlds, tables, verdicts), for layout tests.
    api.layout = () => JSON.parse(call('vantage_layout', 'string'));
    // Teacher console only: a command for the room (impair, strategy, preset, kick, transport) with its
    // arguments as "k=v&..." (seats 1-based). Throws with the reason when refused.
    api.teach = (kind, args) => {
      const err = call('vantage_teach', 'string', ['string', 'string'], [String(kind), String(args || '')]);
      if (err) throw new Error(err);
      return true;
    };
    api.ready = true;
  }

  window.Module = {
    canvas: canvas,
    print: (text) => console.log(text),
    printErr: (text) => console.warn(text),
    onAbort: (what) => fail('The simulation stopped with an error: ' + what + '. Reload the page to start again.'),
    // Called by main() once the window and ImGui exist, before the first frame.
    onAppReady: () => {
      installApi();
      loading.classList.add('done');
      if (location.hash.length > 1) applyHash(location.hash);
      syncHash();
      window.addEventListener('hashchange', () => applyHash(location.hash));
      setInterval(syncHash, 250);
      window.dispatchEvent(new Event('vantage-ready'));
    },
  };

  window.addEventListener('error', (e) => { if (!api.ready) fail('Vantage could not start: ' + e.message); });

  // Fetch the .wasm ourselves so the bar shows the real download, then hand it over.
  async function loadWasm() {
    let response;
    try {
      response = await fetch('vantage.wasm');
    } catch (e) {
      throw new Error('vantage.wasm could not be fetched (' + e.message + ')');
    }
    if (!response.ok) throw new Error('vantage.wasm: HTTP ' + response.status + ' ' + response.statusText);
    // A gzip-encoded response counts its compressed bytes in Content-Length while the stream
    // yields decoded bytes: the server names the decoded size (X-Decoded-Length) beside it.
    const encoded = (response.headers.get('Content-Encoding') || 'identity') !== 'identity';
    const total = Number(response.headers.get(encoded ? 'X-Decoded-Length' : 'Content-Length')) || 0;
    const reader = response.body.getReader();
    const chunks = [];
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      const pct = total ? Math.min(100, (100 * received) / total) : 0;
      progress.style.width = pct.toFixed(1) + '%';
      progress.dataset.bytes = String(received);
      progressText.textContent = 'Loading the simulation… ' + (received / 1048576).toFixed(2) + ' MiB' +
        (total ? ' of ' + (total / 1048576).toFixed(2) + ' MiB' : '');
    }
    const bytes = new Uint8Array(received);
    let offset = 0;
    for (const c of chunks) { bytes.set(c, offset); offset += c.length; }
    return bytes;
  }

  // What the module needs from the engine, checked before the app is started so that an
  // old browser gets a sentence instead of a compile error (index.html preloads the .wasm
  // for everyone else). Each probe is a one-function module: the SIMD one's body is a
  // v128.const, the bulk-memory one's a memory.fill (every engine with SIMD has it too).
  const simdProbe = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // "\0asm", version 1
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,  // types: () -> v128
    0x03, 0x02, 0x01, 0x00,  // functions: one of type 0
    0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c,  // code: one body, no locals, v128.const
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0b]);
  const bulkMemoryProbe = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,  // "\0asm", version 1
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,  // types: () -> ()
    0x03, 0x02, 0x01, 0x00,  // functions: one of type 0
    0x05, 0x03, 0x01, 0x00, 0x00,  // memory: one, at least 0 pages
    0x0a, 0x0d, 0x01, 0x0b, 0x00,  // code: one body, no locals,
    0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xfc, 0x0b, 0x00, 0x0b]);  // memory.fill(0, 0, 0)
  function missingFeature() {
    if (typeof WebAssembly !== 'object') return 'this browser has no WebAssembly';
    if (!WebAssembly.validate(simdProbe))
      return 'this browser has no WebAssembly SIMD (Chrome 91, Firefox 89, Safari 16.4 or later have it)';
    if (!WebAssembly.validate(bulkMemoryProbe))
      return 'this browser has no WebAssembly bulk memory (Chrome 91, Firefox 89, Safari 16.4 or later have it)';
    return '';
  }
  const missing = missingFeature();
  if (missing) {
    fail('Vantage could not load: ' + missing + '.');
    return;
  }

  loadWasm().then((bytes) => {
    window.Module.wasmBinary = bytes;
    progressText.textContent = 'Starting…';
    const script = document.createElement('script');
    script.src = 'vantage.js';
    script.onerror = () => fail('Vantage could not load: vantage.js is missing.');
    document.body.appendChild(script);
  }).catch((e) => fail('Vantage could not load: ' + e.message));
})();
