/* "Test and discover" on the device form: post the form as filled in, show the report inside the form. */
(function () {
  "use strict";
  const button = document.getElementById("discover-button");
  if (!button) return;
  button.addEventListener("click", async function () {
    const form = button.closest("form");
    const status = document.getElementById("discover-status");
    const target = document.getElementById("discovery");
    status.textContent = " talking to the device…";
    button.disabled = true;
    try {
      const response = await fetch(button.dataset.url, { method: "POST", body: new FormData(form), credentials: "same-origin" });
      const html = await response.text();
      // The fragment is rendered by Django's templates, which escape every device string.
      const fragment = document.createRange().createContextualFragment(html);
      target.replaceChildren(fragment);
      status.textContent = response.ok ? " done." : " the device test failed: see below.";
    } catch (err) {
      status.textContent = " could not run the test: " + err.message;
    } finally {
      button.disabled = false;
    }
  });
})();
