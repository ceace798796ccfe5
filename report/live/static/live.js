// Keeps a page of policyevolve serve up to date: on each change of the
// store (server-sent events from /events), fetch this page again and
// replace the parts that differ. No reload: what did not change (a
// playing replay, the scroll position, a form being filled) stays.
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="policyevolve-version"]');
  if (!meta || !window.EventSource || !window.fetch || !window.DOMParser) {
    return;
  }
  var version = meta.getAttribute("content");
  var status = document.getElementById("live-status");
  var busy = false, again = false, updates = 0;

  function say(text, cls) {
    if (status) {
      status.textContent = text;
      status.className = cls;
    }
  }

  // morph makes the children of cur equal to those of next, replacing
  // only the children that differ (depth levels down).
  function morph(cur, next, depth) {
    var a = cur.children, b = next.children;
    if (a.length !== b.length || depth === 0) {
      if (!cur.isEqualNode(next)) {
        cur.replaceChildren.apply(cur, Array.prototype.map.call(next.childNodes, function (n) {
          return document.importNode(n, true);
        }));
      }
      return;
    }
    for (var i = 0; i < a.length; i++) {
      if (a[i].isEqualNode(b[i])) {
        continue;
      }
      if (a[i].tagName === b[i].tagName && a[i].id === b[i].id && a[i].className === b[i].className &&
          /^(SECTION|DIV|DL|TABLE)$/.test(a[i].tagName)) {
        morph(a[i], b[i], depth - 1);
      } else {
        cur.replaceChild(document.importNode(b[i], true), a[i]);
      }
    }
  }

  function apply(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var m = doc.querySelector('meta[name="policyevolve-version"]');
    var next = doc.querySelector("main"), cur = document.querySelector("main");
    if (!m || !next || !cur) {
      return;
    }
    version = m.getAttribute("content");
    // The status line is this script's: carry it over, so that the
    // navigation compares equal.
    var st = next.querySelector("#live-status");
    if (st && status) {
      st.textContent = status.textContent;
      st.className = status.className;
    }
    morph(cur, next, 4);
    status = document.getElementById("live-status");
    document.title = doc.title;
    updates++;
    document.documentElement.setAttribute("data-live-updates", String(updates));
    document.documentElement.setAttribute("data-live-version", version);
  }

  function refresh() {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    fetch(location.href, {cache: "no-store", credentials: "same-origin"}).then(function (r) {
      if (!r.ok) {
        throw new Error("HTTP " + r.status);
      }
      return r.text();
    }).then(function (html) {
      apply(html);
      say("live, updated " + new Date().toLocaleTimeString(), "live");
    }).catch(function (e) {
      say("live: " + e.message + ", retrying on the next change", "off");
    }).then(function () {
      busy = false;
      if (again) {
        again = false;
        refresh();
      }
    });
  }

  function connect() {
    var es = new EventSource("/events?since=" + encodeURIComponent(version));
    es.addEventListener("open", function () { say("live", "live"); });
    es.addEventListener("change", function (e) {
      if (e.data !== version) {
        refresh();
      }
    });
    es.addEventListener("error", function () {
      say("live: disconnected, reconnecting", "off");
    });
  }
  connect();
})();
