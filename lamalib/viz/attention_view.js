// The attention view's script (lamalib/viz/attention_view.py inlines it, then calls it
// with the view's id). No library, no network: it reads the JSON the fragment carries,
// builds the selectors and the coloured tokens, and hides the static table it replaces.
(function (id) {
  "use strict";
  var root = document.getElementById(id);
  if (!root || root.getAttribute("data-live")) return;  // one run per view
  var spec = JSON.parse(document.getElementById(id + "-data").textContent);
  var T = spec.tokens.length, H = spec.H, L = spec.L || 1;
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
    var layer = 0, head = 0, pinned = -1;
    var live = el("div", "lv-live");
    var controls = el("div", "lv-controls");
    function selector(name, count) {
      var label = el("label", "", name + " "), select = el("select", "lv-" + name);
      for (var i = 0; i < count; i++) {
        var option = el("option", "", String(i + 1));
        option.value = String(i);
        select.appendChild(option);
      }
      label.appendChild(select);
      controls.appendChild(label);
      return select;
    }
    var layerSelect = rowwise && L > 1 ? selector("layer", L) : null;
    var headSelect = H > 1 ? selector("head", H) : null;
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

    function row(q) {  // thousandths: the query's row, or the head's distribution
      if (spec.kind === "pooling") return w.slice(head * T, (head + 1) * T);
      var base = (layer * H + head) * Tq * T;
      if (q >= 0) return w.slice(base + q * T, base + (q + 1) * T);
      var got = new Array(T).fill(0);  // no query: the mean each token receives
      for (var r = 0; r < Tq; r++)
        for (var k = 0; k < T; k++) got[k] += w[base + r * T + k] / Tq;
      return got;
    }
    function fmt(x) { return (x / 1000).toFixed(3); }
    function word(i, list) {
      return "\u201c" + (list || spec.tokens)[i] + "\u201d";
    }
    function top(values, count) {
      var order = values.map(function (v, i) { return i; });
      order.sort(function (a, b) { return values[b] - values[a]; });
      return order.slice(0, count).map(function (i) {
        return word(i) + " " + fmt(values[i]);
      }).join(" \u00b7 ");
    }
    function draw(q) {
      var values = row(rowwise ? q : -1);
      var most = Math.max.apply(null, values) || 1;
      spans.forEach(function (span, i) {
        var x = rowwise && q < 0 ? Math.round(values[i]) : values[i];
        span.setAttribute("data-w", fmt(x));
        span.title = fmt(x);
        span.style.backgroundColor = "rgba(255,140,0," + (x / most).toFixed(3) + ")";
      });
      pickers.forEach(function (span, i) {
        span.classList.toggle("lv-query", i === q);
        span.classList.toggle("lv-pinned", i === pinned);
      });
      var where = (layerSelect ? "layer " + (layer + 1) + ", " : "")
        + (H > 1 ? "head " + (head + 1) : "");
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
