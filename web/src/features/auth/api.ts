/** The auth feature's calls: the install's state and setup, signing in, sign-ups, invites, one's password. */
import type {
  AcceptInviteBody,
  ChangePasswordBody,
  Instance,
  InviteInfo,
  LoginBody,
  RegisterBody,
  SetupAnswer,
  SetupBody,
  TokenPair,
} from "../../../../src/api-types";
import { api, publicApi } from "../../lib/api";

/** What a signed-out page may know of the install: whether it needs setting up, whether sign-ups are open. */
export function getInstance(): Promise<Instance> {
  return publicApi<Instance>("GET", "/public/instance");
}

/** First-run setup: the organization and its owner, signed in. */
export function setUp(body: SetupBody): Promise<SetupAnswer> {
  return publicApi<SetupAnswer>("POST", "/public/setup", body);
}

/** Signs in with an email and a password. */
export function logIn(body: LoginBody): Promise<TokenPair> {
  return publicApi<TokenPair>("POST", "/auth/login", body);
}

/** Requests an account (open sign-ups): signed in, waiting for approval. */
export function register(body: RegisterBody): Promise<TokenPair> {
  return publicApi<TokenPair>("POST", "/auth/register", body);
}

/** Whose invite `token` is, or why it cannot be used (the API's error). */
export function inviteInfo(token: string): Promise<InviteInfo> {
  return publicApi<InviteInfo>("POST", "/auth/invite-info", { token });
}

/** Accepts an invite: a new account, or an existing one given its password. */
export function acceptInvite(body: AcceptInviteBody): Promise<TokenPair> {
  return publicApi<TokenPair>("POST", "/auth/accept-invite", body);
}

/** Ends the session of `refreshToken` on the server (not this tab's: `signOut` in lib/api does that). */
export async function logOut(refreshToken: string): Promise<void> {
  await publicApi("POST", "/auth/logout", { refresh_token: refreshToken });
}

/** Changes the signed-in account's password; its other sessions end. */
export async function changePassword(body: ChangePasswordBody): Promise<void> {
  await api("POST", "/me/password", body);
}
