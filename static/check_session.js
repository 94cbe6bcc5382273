// OpenID Connect Session Management 1.0, section 3.2: the OP iframe. A relying party posts
// "client_id session_state"; the answer is "unchanged" when the session_state, recomputed from
// the client_id, the sender's origin, the browser-state cookie and the salt, is the one the
// portal gave; "changed" when it is not (the user logged out or in again); "error" when the
// message cannot be read. session_state = base64(SHA-256(client_id " " origin " " opbs " "
// salt)) "." salt, as the portal computes it.
(function () {
  "use strict";
  var cookieName = document.currentScript.getAttribute("data-cookie");

  function browserState() {
    var pairs = document.cookie.split(";");
    for (var i = 0; i < pairs.length; i++) {
      var pair = pairs[i].trim();
      var eq = pair.indexOf("=");
      if (eq > 0 && pair.slice(0, eq) === cookieName) {
        return pair.slice(eq + 1);
      }
    }
    return "";
  }

  function base64(buffer) {
    var bytes = new Uint8Array(buffer);
    var text = "";
    for (var i = 0; i < bytes.length; i++) {
      text += String.fromCharCode(bytes[i]);
    }
    return btoa(text);
  }

  function answer(event, status) {
    if (event.source && event.origin && event.origin !== "null") {
      event.source.postMessage(status, event.origin);
    }
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    // The session_state has no space: the client_id is everything before the last one.
    var space = typeof data === "string" ? data.lastIndexOf(" ") : -1;
    if (space < 1) {
      answer(event, "error");
      return;
    }
    var clientId = data.slice(0, space);
    var sessionState = data.slice(space + 1);
    var dot = sessionState.lastIndexOf(".");
    if (dot < 1 || dot === sessionState.length - 1) {
      answer(event, "error");
      return;
    }
    var salt = sessionState.slice(dot + 1);
    if (!window.crypto || !window.crypto.subtle || !window.TextEncoder) {
      answer(event, "error"); // Web Crypto needs a secure context (https)
      return;
    }
    var text = clientId + " " + event.origin + " " + browserState() + " " + salt;
    window.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(
      function (hash) {
        var expected = base64(hash) + "." + salt;
        answer(event, expected === sessionState ? "unchanged" : "changed");
      },
      function () {
        answer(event, "error");
      }
    );
  }, false);
})();
