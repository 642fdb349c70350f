// The Mini App's check before a Confirm: the device's biometric check through Telegram's
// BiometricManager where Telegram offers it (Bot API 7.2+, a device with a sensor, access
// granted by the owner); where it cannot, the confirm goes ahead and the card says the
// check was not available — never silently.
//
// Owns: that guard. Does not own: the confirm (chat/card.js), the decision (the server's).

const REASON = 'Confirm an action Steward will take for you';

function call(fn, ...args) {
  return new Promise((resolve) => fn(...args, (...results) => resolve(results)));
}

/** A `setConfirmGuard` guard for the Telegram WebApp object `webApp` (may be missing). */
export function biometricGuard(webApp) {
  return async () => {
    const bm = webApp && webApp.BiometricManager;
    const supported = bm && typeof webApp.isVersionAtLeast === 'function' && webApp.isVersionAtLeast('7.2');
    if (!supported) {
      return { ok: true, note: 'Confirmed without a biometric check: this Telegram app does not offer one.' };
    }
    if (!bm.isInited) await call(bm.init.bind(bm));
    if (!bm.isBiometricAvailable) {
      return { ok: true, note: 'Confirmed without a biometric check: this device has none set up.' };
    }
    if (!bm.isAccessGranted) {
      const [granted] = await call(bm.requestAccess.bind(bm), { reason: REASON });
      if (!granted) {
        return { ok: true, note: 'Confirmed without a biometric check: access to it was not granted (Telegram’s settings can allow it).' };
      }
    }
    const [authenticated] = await call(bm.authenticate.bind(bm), { reason: REASON });
    if (!authenticated) return { ok: false, note: 'The biometric check did not pass: nothing was confirmed.' };
    return { ok: true, note: '' };
  };
}
