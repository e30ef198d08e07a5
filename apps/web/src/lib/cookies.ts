/** Cookie helpers: path /, SameSite=Lax, lifetime in days (spec 1 §9). */

export function getCookie(name: string): string | null {
  const prefix = `${encodeURIComponent(name)}=`;
  for (const part of document.cookie.split('; ')) {
    if (part.startsWith(prefix)) {
      try {
        return decodeURIComponent(part.slice(prefix.length));
      } catch {
        return null;
      }
    }
  }
  return null;
}

export function setCookie(name: string, value: string, days: number): void {
  const expires = new Date(Date.now() + days * 86_400_000).toUTCString();
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${encodeURIComponent(name)}=${encodeURIComponent(value)}; expires=${expires}; path=/; SameSite=Lax${secure}`;
}

export function removeCookie(name: string): void {
  document.cookie = `${encodeURIComponent(name)}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/; SameSite=Lax`;
}

/** A JSON cookie; invalid JSON gives a console warning, removes the cookie and reads as null. */
export function getJsonCookie<T>(name: string): T | null {
  const raw = getCookie(name);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    console.warn(`Cookie « ${name} » invalide : supprimé`);
    removeCookie(name);
    return null;
  }
}

export function setJsonCookie(name: string, value: unknown, days: number): void {
  setCookie(name, JSON.stringify(value), days);
}
