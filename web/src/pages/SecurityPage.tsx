import { CloseAccount } from './security/CloseAccount';
import { LinkedProviders } from './security/LinkedProviders';
import { PasskeyList } from './security/PasskeyList';
import { PasswordChangeForm } from './security/PasswordChangeForm';
import { SessionList } from './security/SessionList';
import { TwoStepForm } from './security/TwoStepForm';

/** Security: password, two-step verification, passkeys, sign-in providers, sessions, closing the account. */
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
        <LinkedProviders />
      </div>
      <div class="card">
        <SessionList />
      </div>
      <div class="card">
        <CloseAccount />
      </div>
    </section>
  );
}
