// Form Post Response Mode: posts the page's form to the relying party at once.
document.forms[0].submit();
