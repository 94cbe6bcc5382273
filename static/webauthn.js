// WebAuthn on the portal's pages: the one thing a page cannot do without script is talk to the
// security key. An element marked data-webauthn="get" (the second-factor step) or "create" (a
// registration), inside the form to submit, carries the ceremony's options as the server
// issued them (data-request) and the status texts in the page's language (data-msg-*); when
// the form is submitted without an answer, this script hands the options to
// navigator.credentials, writes the answer (the PublicKeyCredential as JSON, binary members in
// base64url, as LemonLDAP::NG's webauthn-ui.js writes it) into the form's "credential" field
// and submits the form. The step's form starts the ceremony at once. Everything else is HTML.
(function () {
  "use strict";

  function decode(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) { b64 += "="; }
    var bin = window.atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out;
  }

  function encode(buffer) {
    if (!buffer) { return null; }
    var bytes = new Uint8Array(buffer);
    var bin = "";
    for (var i = 0; i < bytes.length; i++) { bin += String.fromCharCode(bytes[i]); }
    return window.btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map(function (d) {
      return { type: d.type || "public-key", id: decode(d.id), transports: d.transports };
    });
  }

  function creationOptions(r) {
    var o = Object.assign({}, r);
    o.challenge = decode(r.challenge);
    o.user = Object.assign({}, r.user, { id: decode(r.user.id) });
    o.excludeCredentials = descriptors(r.excludeCredentials);
    return o;
  }

  function requestOptions(r) {
    var o = Object.assign({}, r);
    o.challenge = decode(r.challenge);
    o.allowCredentials = descriptors(r.allowCredentials);
    return o;
  }

  function answer(cred) {
    var r = cred.response;
    var out = { id: cred.id, rawId: encode(cred.rawId), type: cred.type, response: {
      clientDataJSON: encode(r.clientDataJSON)
    } };
    if (r.attestationObject) { out.response.attestationObject = encode(r.attestationObject); }
    if (r.authenticatorData) {
      out.response.authenticatorData = encode(r.authenticatorData);
      out.response.signature = encode(r.signature);
      if (r.userHandle) { out.response.userHandle = encode(r.userHandle); }
    }
    return out;
  }

  function say(key, role) {
    var box = document.getElementById("webauthn-status");
    if (!box) { return; }
    box.className = role === "alert" ? "error" : "message";
    box.setAttribute("role", role);
    box.textContent = marked.getAttribute("data-msg-" + key) || "";
  }

  function run(form) {
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say("unsupported", "alert");
      return;
    }
    var request = JSON.parse(marked.getAttribute("data-request"));
    var create = marked.getAttribute("data-webauthn") === "create";
    say("progress", "status");
    var call = create
      ? navigator.credentials.create({ publicKey: creationOptions(request) })
      : navigator.credentials.get({ publicKey: requestOptions(request) });
    call.then(function (cred) {
      form.elements.credential.value = JSON.stringify(answer(cred));
      form.submit();
    }, function () {
      say("failed", "alert");
    });
  }

  var marked = document.querySelector("[data-webauthn]");
  var form = marked && marked.closest("form");
  if (!form) { return; }
  form.addEventListener("submit", function (event) {
    if (!form.elements.credential.value) {
      event.preventDefault();
      run(form);
    }
  });
  if (marked.getAttribute("data-webauthn") === "get") { run(form); }
}());
