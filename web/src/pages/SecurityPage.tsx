import { PasskeyList } from './security/PasskeyList';
import { PasswordChangeForm } from './security/PasswordChangeForm';
import { SessionList } from './security/SessionList';
import { TwoStepForm } from './security/TwoStepForm';

/** Security: password change, two-step verification, passkeys, sessions. */
export function SecurityPage() {
  return (
    <section aria-labelledby="security-title">
      <h1 id="security-title">Security</h1>
      <div class="card">
        <PasswordChangeForm />
      </div>
      <div class="card">
        <TwoStepForm />
      </div>
      <div class="card">
        <PasskeyList />
      </div>
      <div class="card">
        <SessionList />
      </div>
    </section>
  );
}
