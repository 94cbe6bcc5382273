// The menu's application filter as the user types: hides the tiles whose name and description
// do not hold the words (ignoring case), and the categories left empty. Without this script the
// filter is the form's GET (`/?q=`), which the server answers the same way.
(function () {
  "use strict";
  var box = document.getElementById("appq");
  var list = document.getElementById("appslist");
  if (!box || !list) { return; }
  function apply() {
    var q = box.value.trim().toLowerCase();
    var tiles = list.querySelectorAll("li.application");
    for (var i = 0; i < tiles.length; i++) {
      var text = tiles[i].textContent.toLowerCase();
      tiles[i].hidden = q !== "" && text.indexOf(q) < 0;
    }
    var cats = list.querySelectorAll("div.category");
    for (var j = cats.length - 1; j >= 0; j--) {
      cats[j].hidden = !cats[j].querySelector("li.application:not([hidden])");
    }
  }
  box.addEventListener("input", apply);
})();
