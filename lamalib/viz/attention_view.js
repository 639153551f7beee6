// The attention view's script (lamalib/viz/attention_view.py inlines it, then calls it
// with the view's id). No library, no network: it reads the JSON the fragment carries,
// builds the selectors and the coloured tokens, and hides the static table it replaces.
(function (id) {
  "use strict";
  var root = document.getElementById(id);
  if (!root || root.getAttribute("data-live")) return;  // one run per view
  var spec = JSON.parse(document.getElementById(id + "-data").textContent);
  var T = spec.tokens.length, H = spec.H, L = spec.L || 1;
  var derived = spec.derived || [], HH = H + derived.length;  // heads, then derived
  var special = spec.special || [], isSpecial = new Array(T).fill(false);
  special.forEach(function (i) { isSpecial[i] = true; });
  var cross = spec.kind === "cross", rowwise = spec.kind !== "pooling";
  var queries = cross ? spec.queries : spec.tokens, Tq = queries.length;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // the weights arrive as integers in thousandths: a JSON list, or (large views) a
  // zlib stream of their low bytes then their high bytes, in base64
  function weights() {
    if (spec.encoding === "plain") return Promise.resolve(spec.w);
    if (typeof DecompressionStream === "undefined")
      return Promise.reject(new Error("this browser cannot unpack the weights"));
    var raw = atob(spec.w), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).arrayBuffer().then(function (buffer) {
      var b = new Uint8Array(buffer), n = b.length / 2, w = new Array(n);
      for (var k = 0; k < n; k++) w[k] = b[k] | (b[n + k] << 8);
      return w;
    });
  }

  function build(w) {
    var start = spec.start || [0, 0];
    var layer = start[0], head = start[1], pinned = -1, hide = !!spec.hide;
    var live = el("div", "lv-live");
    var controls = el("div", "lv-controls");
    function selector(name, count, extra) {
      var label = el("label", "", name + " "), select = el("select", "lv-" + name);
      var names = [];
      for (var i = 0; i < count; i++) names.push(String(i + 1));
      names = names.concat(extra || []);
      names.forEach(function (text, i) {
        var option = el("option", "", text);
        option.value = String(i);
        select.appendChild(option);
      });
      label.appendChild(select);
      controls.appendChild(label);
      return select;
    }
    var layerSelect = rowwise && L > 1 ? selector("layer", L) : null;
    var headSelect = HH > 1 ? selector("head", H, derived) : null;
    if (layerSelect) layerSelect.value = String(layer);
    if (headSelect) headSelect.value = String(head);
    var hideBox = null;
    if (special.length && spec.kind === "self") {
      var hideLabel = el("label", "lv-hide");
      hideBox = el("input");
      hideBox.type = "checkbox";
      hideBox.checked = hide;
      hideLabel.appendChild(hideBox);
      hideLabel.appendChild(document.createTextNode(" hide special tokens"));
      controls.appendChild(hideLabel);
    }
    function button(text) {
      var b = el("button", "lv-export", text);
      b.type = "button";
      controls.appendChild(b);
      return b;
    }
    var pngButton = rowwise ? button("PNG") : null;
    var svgButton = rowwise ? button("SVG") : null;
    controls.appendChild(el("span", "lv-help", cross
      ? "hover or click a target word: where it looks in the source"
      : spec.kind === "self" ? "hover or click a word: where it looks"
      : "hover or click a word: its weight in every head"));
    // one line of words; with cross-attention a line of target words (the queries)
    // above the source words (the keys) that their weights shade
    function words(list, cls, pickable) {
      var line = el("div", "lv-tokens"), made = [];
      list.forEach(function (token, i) {
        var span = el("span", cls, token);
        span.setAttribute("data-i", String(i));
        if (pickable) {
          span.tabIndex = 0;
          span.setAttribute("role", "button");
        }
        line.appendChild(span);
        line.appendChild(document.createTextNode(" "));
        made.push(span);
      });
      return {line: line, spans: made};
    }
    var source = words(spec.tokens, "lv-tok", !cross), spans = source.spans;
    var target = cross ? words(queries, "lv-qtok", true) : null;
    var pickers = cross ? target.spans : spans;  // what hover and click choose
    var info = el("div", "lv-info");
    info.setAttribute("aria-live", "polite");
    live.appendChild(controls);
    if (cross) {
      target.line.insertBefore(el("span", "lv-side", "target"), target.line.firstChild);
      source.line.insertBefore(el("span", "lv-side", "source"), source.line.firstChild);
      live.appendChild(target.line);
    }
    live.appendChild(source.line);
    live.appendChild(info);

    // the derived maps of a layer, in thousandths: the mean of its heads, and the
    // rollout (Abnar and Zuidema): R_l = (0.5 mean_l + 0.5 I) R_(l-1), rows renormalised,
    // as lamalib.nn.self_attention.rollout.attention_rollout computes it
    var cache = {};
    function headMean(l) {
      var key = "m" + l;
      if (cache[key]) return cache[key];
      var m = new Array(Tq * T).fill(0);
      for (var h = 0; h < H; h++) {
        var base = (l * H + h) * Tq * T;
        for (var k = 0; k < Tq * T; k++) m[k] += w[base + k] / H;
      }
      return (cache[key] = m);
    }
    function rollout(l) {
      var key = "r" + l;
      if (cache[key]) return cache[key];
      var before = null;
      if (l > 0) before = rollout(l - 1).map(function (x) { return x / 1000; });
      var m = headMean(l), a = new Array(T * T), out = new Array(T * T).fill(0);
      for (var i = 0; i < T; i++) {
        var sum = 0;
        for (var j = 0; j < T; j++) {
          a[i * T + j] = 0.5 * m[i * T + j] / 1000 + (i === j ? 0.5 : 0);
          sum += a[i * T + j];
        }
        for (var j2 = 0; j2 < T; j2++) a[i * T + j2] /= sum;
      }
      for (var r = 0; r < T; r++)
        for (var c = 0; c < T; c++) {
          if (!before) { out[r * T + c] = 1000 * a[r * T + c]; continue; }
          var s = 0;
          for (var k = 0; k < T; k++) s += a[r * T + k] * before[k * T + c];
          out[r * T + c] = 1000 * s;
        }
      return (cache[key] = out);
    }
    function raw(q) {  // thousandths: query q's row; hidden keys out, renormalised
      var r;
      if (head < H) {
        var base = (layer * H + head) * Tq * T;
        r = w.slice(base + q * T, base + (q + 1) * T);
      } else {
        r = (head === H ? headMean(layer) : rollout(layer)).slice(q * T, (q + 1) * T);
      }
      if (!hide) return r;
      var sum = 0;
      for (var k = 0; k < T; k++) { if (isSpecial[k]) r[k] = 0; sum += r[k]; }
      return r.map(function (x) { return sum > 0 ? 1000 * x / sum : 0; });
    }
    function visibleQueries() {
      var out = [];
      for (var r = 0; r < Tq; r++) if (cross || !hide || !isSpecial[r]) out.push(r);
      return out;
    }
    function row(q) {  // thousandths: the query's row, or the head's distribution
      if (spec.kind === "pooling") return w.slice(head * T, (head + 1) * T);
      if (q >= 0) return raw(q);
      var got = new Array(T).fill(0), rows = visibleQueries();
      rows.forEach(function (r) {  // no query: the mean each token receives
        var x = raw(r);
        for (var k = 0; k < T; k++) got[k] += x[k] / rows.length;
      });
      return got;
    }
    // one colour rule (lamalib.viz.attention_view.robust_scale): the darkest colour at
    // the 99th percentile of the values drawn (linear interpolation), not at the maximum
    function quantile99(values) {
      var v = values.slice().sort(function (a, b) { return a - b; });
      if (!v.length) return 1;
      var pos = 0.99 * (v.length - 1), lo = Math.floor(pos), hi = Math.ceil(pos);
      return Math.max(v[lo] + (v[hi] - v[lo]) * (pos - lo), 1e-9);
    }
    function shownKeys() {
      var out = [];
      for (var k = 0; k < T; k++) if (!(hide && isSpecial[k])) out.push(k);
      return out;
    }
    function scale(q, values) {  // a row: over every visible row of the map shown
      var keys = shownKeys();
      if (!rowwise || q < 0) return quantile99(keys.map(function (k) { return values[k]; }));
      var all = [];
      visibleQueries().forEach(function (r) {
        var x = raw(r);
        keys.forEach(function (k) { all.push(x[k]); });
      });
      return quantile99(all);
    }
    function where_() {
      var place = layerSelect ? "layer " + (layer + 1) : "";
      var which = head < H ? (HH > 1 ? "head " + (head + 1) : "")
        : head === H ? "mean of heads" : "rollout to layer " + (layer + 1);
      return [place, which].filter(Boolean).join(", ");
    }
    function fmt(x) { return (x / 1000).toFixed(3); }
    function word(i, list) {
      return "\u201c" + (list || spec.tokens)[i] + "\u201d";
    }
    function top(values, count) {
      var order = shownKeys();
      order.sort(function (a, b) { return values[b] - values[a]; });
      return order.slice(0, count).map(function (i) {
        return word(i) + " " + fmt(values[i]);
      }).join(" \u00b7 ");
    }
    var shownWhere = "";
    function draw(q) {
      var values = row(rowwise ? q : -1);
      var most = scale(rowwise ? q : -1, values);
      spans.forEach(function (span, i) {
        var x = rowwise ? Math.round(values[i]) : values[i];
        var off = hide && isSpecial[i];
        span.hidden = off;
        if (span.nextSibling) span.nextSibling.textContent = off ? "" : " ";
        span.setAttribute("data-w", fmt(x));
        span.title = fmt(x);
        span.style.backgroundColor = "rgba(255,140,0,"
          + Math.min(x / most, 1).toFixed(3) + ")";
      });
      pickers.forEach(function (span, i) {
        span.classList.toggle("lv-query", i === q);
        span.classList.toggle("lv-pinned", i === pinned);
      });
      var where = spec.kind === "pooling" ? (H > 1 ? "head " + (head + 1) : "")
        : where_();
      if (spec.kind === "pooling") {
        var text = (where ? where + ": " : "") + "the most weight on " + top(values, 5);
        if (q >= 0) {
          var heads = [];
          for (var h = 0; h < H; h++)
            heads.push("head " + (h + 1) + " " + fmt(w[h * T + q]));
          text = word(q) + " in every head: " + heads.join(" \u00b7 ");
        }
        info.textContent = text;
      } else if (q >= 0) {
        info.textContent = (where ? where + ": " : "") + word(q, queries)
          + (cross ? " looks in the source at " : " looks at ") + top(values, 5);
      } else {
        info.textContent = (where ? where + ": " : "") + (cross
          ? "the attention each source word receives (mean over target words): "
          : "the attention each word receives (mean over queries): ") + top(values, 5);
      }
      if (hide) info.textContent += " (special tokens hidden, rows renormalised)";
      shownWhere = where;
    }
    function pick(i) { pinned = pinned === i ? -1 : i; draw(pinned); }
    pickers.forEach(function (span, i) {
      span.addEventListener("mouseenter", function () { draw(i); });
      span.addEventListener("focus", function () { draw(i); });
      span.addEventListener("mouseleave", function () { draw(pinned); });
      span.addEventListener("click", function () { pick(i); });
      span.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          pick(i);
        }
      });
    });
    if (layerSelect) layerSelect.addEventListener("change", function () {
      layer = Number(layerSelect.value); draw(pinned);
    });
    if (headSelect) headSelect.addEventListener("change", function () {
      head = Number(headSelect.value); draw(pinned);
    });
    if (hideBox) hideBox.addEventListener("change", function () {
      hide = hideBox.checked;
      if (pinned >= 0 && hide && isSpecial[pinned]) pinned = -1;
      draw(pinned);
    });
    // export: the words as drawn (their shading) and the line that says what is shown
    function layout() {
      var ctx = document.createElement("canvas").getContext("2d");
      var font = "14px monospace", width = 720, pad = 8, lineH = 26;
      ctx.font = font;
      var boxes = [], x = pad, y = pad + lineH;  // first line: the caption
      spans.forEach(function (span, i) {
        if (span.hidden) return;
        var tw = ctx.measureText(span.textContent).width + 6;
        if (x + tw > width - pad && x > pad) { x = pad; y += lineH; }
        boxes.push({x: x, y: y, w: tw, h: lineH - 6, text: span.textContent,
                    fill: span.style.backgroundColor,
                    query: span.classList.contains("lv-query")});
        x += tw + 4;
      });
      return {boxes: boxes, width: width, height: y + lineH + pad, font: font,
              caption: info.textContent, pad: pad};
    }
    function escapeXml(text) {
      return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
        .replace(/"/g, "&quot;");
    }
    function svgText() {
      var m = layout(), parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="'
        + m.width + '" height="' + m.height + '" font-family="monospace" '
        + 'font-size="14"><rect width="100%" height="100%" fill="white"/>'
        + '<text x="' + m.pad + '" y="' + (m.pad + 14) + '" font-size="12">'
        + escapeXml(m.caption) + "</text>"];
      m.boxes.forEach(function (b) {
        parts.push('<rect x="' + b.x.toFixed(1) + '" y="' + b.y + '" width="'
          + b.w.toFixed(1) + '" height="' + b.h + '" rx="3" fill="' + b.fill + '"'
          + (b.query ? ' stroke="#1f5fbf" stroke-width="2"' : "") + "/>");
        parts.push('<text x="' + (b.x + 3).toFixed(1) + '" y="' + (b.y + b.h - 6)
          + '">' + escapeXml(b.text) + "</text>");
      });
      return parts.join("") + "</svg>";
    }
    function pngURL() {
      var m = layout(), canvas = document.createElement("canvas"), k = 2;
      canvas.width = m.width * k;
      canvas.height = m.height * k;
      var ctx = canvas.getContext("2d");
      ctx.scale(k, k);
      ctx.fillStyle = "white";
      ctx.fillRect(0, 0, m.width, m.height);
      ctx.fillStyle = "#222";
      ctx.font = "12px monospace";
      ctx.fillText(m.caption, m.pad, m.pad + 14);
      ctx.font = m.font;
      m.boxes.forEach(function (b) {
        ctx.fillStyle = b.fill;
        ctx.fillRect(b.x, b.y, b.w, b.h);
        if (b.query) {
          ctx.strokeStyle = "#1f5fbf";
          ctx.lineWidth = 2;
          ctx.strokeRect(b.x, b.y, b.w, b.h);
        }
        ctx.fillStyle = "#222";
        ctx.fillText(b.text, b.x + 3, b.y + b.h - 6);
      });
      return canvas.toDataURL("image/png");
    }
    function save(url, ext) {
      var a = document.createElement("a");
      a.href = url;
      a.download = ("attention " + shownWhere).trim().replace(/[^\w]+/g, "-") + "." + ext;
      document.body.appendChild(a);
      a.click();
      a.remove();
    }
    root.lvExport = {};  // the last export, for a test to read
    if (svgButton) svgButton.addEventListener("click", function () {
      var text = svgText();
      root.lvExport.svg = text;
      save("data:image/svg+xml;charset=utf-8," + encodeURIComponent(text), "svg");
    });
    if (pngButton) pngButton.addEventListener("click", function () {
      var url = pngURL();
      root.lvExport.png = url;
      save(url, "png");
    });
    draw(-1);
    var table = root.querySelector(".lv-static");
    root.insertBefore(live, table);
    table.hidden = true;
    root.setAttribute("data-live", "1");
  }

  weights().then(build, function (error) {
    var note = el("div", "lv-info", "The interactive view is not available here ("
      + error.message + "); the table shows the weights.");
    root.insertBefore(note, root.querySelector(".lv-static"));
  });
})
