// The header's language selector sends its form as soon as a language is chosen (the page's
// CSP allows no inline onchange); without this script, its noscript button does.
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select.matches && select.matches("select[data-submit-on-change]")) select.form.submit();
  });
})();
