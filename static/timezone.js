// Tells the portal the browser's time zone, so that the pages show their dates in it: the
// cookie limette_tz holds the IANA name the browser gives (Europe/Paris). The server checks
// the name again and shows UTC, labelled so, for a zone it does not know.
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (e) {
    return;
  }
  var name = /^[A-Za-z0-9][A-Za-z0-9_+-]*(\/[A-Za-z0-9][A-Za-z0-9_+-]*)*$/;
  if (typeof zone !== "string" || zone.length > 64 || !name.test(zone)) {
    return;
  }
  var pairs = document.cookie.split(";");
  for (var i = 0; i < pairs.length; i++) {
    if (pairs[i].trim() === "limette_tz=" + zone) {
      return;
    }
  }
  var secure = window.location.protocol === "https:" ? ";Secure" : "";
  document.cookie =
    "limette_tz=" + zone + ";path=/;max-age=31536000;SameSite=Lax" + secure;
})();
