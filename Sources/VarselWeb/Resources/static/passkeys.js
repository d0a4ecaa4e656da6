// Passkeys: the browser's side of adding one (Profile) and of signing in with one (the sign-in page, and the
// username field's passkey autofill). The server decides everything; this only carries bytes between the browser's
// WebAuthn and the JSON API, and shows the server's words.
"use strict";

(function () {
  // The page is drawn for a browser with passkeys (and, without JavaScript, for one without: noscript.css); a browser
  // with JavaScript but no WebAuthn gets the sentence instead of the controls.
  if (!window.PublicKeyCredential || !navigator.credentials) {
    document.documentElement.classList.add("no-passkeys");
    return;
  }

  const toBytes = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  };
  const toText = (buffer) => {
    let binary = "";
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  // A refusal is shown beside the control and spoken once through the page's assertive live region.
  const say = (element, text) => {
    element.textContent = text;
    const live = document.getElementById("live-assertive");
    if (!live) return;
    live.textContent = "";
    window.setTimeout(() => { live.textContent = text; }, 100);
  };
  // A refused field says it is invalid and has its rule heard once: as the field's description when focus moves to
  // it, or through the live region when focus is in it already (Enter pressed there), where nothing else speaks.
  const refuseField = (field, element, text) => {
    field.setAttribute("aria-invalid", "true");
    if (document.activeElement === field) {
      say(element, text);
      return;
    }
    element.textContent = text;
    // Focus follows once the browser has drawn the new words, so the field is presented with them, once: focused
    // in the same frame, Chromium reports the changed description after the focus, and Orca says it again.
    requestAnimationFrame(() => requestAnimationFrame(() => field.focus()));
  };
  const post = (path, body, csrf) => fetch(path, {
    method: "POST", credentials: "same-origin",
    headers: Object.assign({ "Content-Type": "application/json" }, csrf ? { "X-CSRF-Token": csrf } : {}),
    body: JSON.stringify(body),
  });

  // Signing in -----------------------------------------------------------------------------------------------
  const signInBlock = document.getElementById("passkey-signin");
  const signInButton = document.getElementById("sign-in-passkey");
  if (signInBlock && signInButton) {
    const error = document.getElementById("passkey-error");
    let autofill = null;

    const finish = async (credential) => {
      const response = credential.response;
      const answer = await post("/api/v1/session/passkey", {
        credential: {
          id: credential.id, type: credential.type,
          response: {
            clientDataJSON: toText(response.clientDataJSON), authenticatorData: toText(response.authenticatorData),
            signature: toText(response.signature), userHandle: response.userHandle ? toText(response.userHandle) : null,
          },
        },
      });
      if (!answer.ok) throw new Error("not accepted");
      window.location.assign(signInButton.dataset.next || "/notifications");
    };
    // Each request for options sets the attempt's cookie; one at a time, so the cookie is always the one of the
    // challenge last asked for (the autofill's request may still be on its way when the button is pressed).
    let asking = Promise.resolve();
    const options = () => {
      const next = asking.catch(() => {}).then(async () => {
        const answer = await post("/api/v1/session/passkey/options", {});
        if (!answer.ok) throw new Error("no options");
        const json = await answer.json();
        return { challenge: toBytes(json.challenge), rpId: json.rpId, timeout: json.timeout, userVerification: json.userVerification,
                 allowCredentials: [] };
      });
      asking = next;
      return next;
    };
    const startAutofill = async () => {
      if (!PublicKeyCredential.isConditionalMediationAvailable || !(await PublicKeyCredential.isConditionalMediationAvailable())) return;
      autofill = new AbortController();
      try {
        const credential = await navigator.credentials.get({ publicKey: await options(), mediation: "conditional", signal: autofill.signal });
        if (credential) await finish(credential);
      } catch (problem) {
        if (problem && problem.name === "AbortError") return;
        say(error, signInButton.dataset.notAccepted);
      }
    };

    signInButton.addEventListener("click", async () => {
      error.textContent = "";
      if (autofill) autofill.abort();
      try {
        const credential = await navigator.credentials.get({ publicKey: await options() });
        await finish(credential);
      } catch (problem) {
        say(error, signInButton.dataset.notAccepted);
        startAutofill();
      }
    });
    startAutofill();
  }

  // Adding a passkey on the Profile ---------------------------------------------------------------------------
  const addForm = document.getElementById("add-passkey-form");
  if (addForm) {
    const csrf = document.body.dataset.csrf || null;
    const error = document.getElementById("add-passkey-error");
    const name = document.getElementById("new-passkey-name");
    addForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      error.textContent = "";
      name.removeAttribute("aria-invalid");
      const chosen = name.value.trim();
      if (!chosen || chosen.length > 60) {
        refuseField(name, error, addForm.dataset.nameRule);
        return;
      }
      // On the set-password page the one-time link's code is the credential; on the Profile, the session.
      const code = addForm.dataset.code;
      const optionsPath = code ? "/api/v1/password/passkey/options" : "/api/v1/me/passkeys/options";
      const savePath = code ? "/api/v1/password/passkey" : "/api/v1/me/passkeys";
      try {
        const answer = await post(optionsPath, code ? { code } : {}, csrf);
        if (!answer.ok) throw new Error("no options");
        const json = await answer.json();
        const credential = await navigator.credentials.create({ publicKey: {
          rp: json.rp, user: { id: toBytes(json.user.id), name: json.user.name, displayName: json.user.displayName },
          challenge: toBytes(json.challenge), pubKeyCredParams: json.pubKeyCredParams, timeout: json.timeout,
          excludeCredentials: json.excludeCredentials.map((c) => ({ type: c.type, id: toBytes(c.id) })),
          authenticatorSelection: json.authenticatorSelection, attestation: json.attestation,
        } });
        const saved = await post(savePath, Object.assign(code ? { code } : {}, {
          name: chosen,
          credential: { id: credential.id, type: credential.type, response: {
            clientDataJSON: toText(credential.response.clientDataJSON),
            attestationObject: toText(credential.response.attestationObject),
          } },
        }), csrf);
        if (saved.status === 422 && (await saved.json()).errors) {
          refuseField(name, error, addForm.dataset.nameRule);
          return;
        }
        if (!saved.ok) throw new Error("not added");
        window.location.assign(code ? "/?done=passkey-added" : "/profile?done=passkey-added");
      } catch (problem) {
        say(error, addForm.dataset.notAdded);
      }
    });
  }
})();
