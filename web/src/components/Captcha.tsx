import { useEffect, useRef, useState } from 'preact/hooks';
import type { SiteConfig } from '../config';

type Render = {
  render(
    el: HTMLElement,
    options: { sitekey: string; callback(token: string): void; 'expired-callback'?(): void },
  ): unknown;
};

/**
 * The configured captcha: the provider's script, loaded when this component first shows (the
 * CSP allows that provider's origins only), renders its widget and hands back the token. In
 * development (`test`) the gateway's test token is handed back at once.
 */
export function Captcha({
  captcha,
  onToken,
}: {
  captcha: NonNullable<SiteConfig['captcha']>;
  onToken(token: string | undefined): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if ('token' in captcha) return onToken(captcha.token);
    const { script, global, site_key } = captcha;
    const render = () =>
      (window as unknown as Record<string, Render>)[global]?.render(host.current!, {
        sitekey: site_key,
        callback: onToken,
        'expired-callback': () => onToken(undefined),
      });
    if ((window as unknown as Record<string, unknown>)[global]) return void render();
    const tag = document.createElement('script');
    tag.src = script;
    tag.async = true;
    tag.onload = () => setTimeout(render, 0);
    tag.onerror = () => setFailed(true);
    document.head.append(tag);
  }, []);
  if ('token' in captcha) return null;
  return (
    <div>
      <div ref={host} />
      {failed && (
        <p class="error" role="alert">
          The captcha could not be loaded. Check your connection and reload the page.
        </p>
      )}
    </div>
  );
}
