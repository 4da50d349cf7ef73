import { api, onSubmit, saveSession, type TokenPair } from "./api";

const form = document.getElementById("setup") as HTMLFormElement;
const token = new URLSearchParams(location.search).get("token") ?? "";

onSubmit(form, async (data) => {
  const name = String(data.get("admin_name") ?? "").trim();
  const session = await api<TokenPair>("POST", "/api/v1/public/setup", {
    token,
    org_name: data.get("org_name"),
    admin_email: data.get("admin_email"),
    admin_password: data.get("admin_password"),
    ...(name ? { admin_name: name } : {}),
  });
  saveSession(session);
  // The one-time token must not linger in the history.
  location.replace("/");
});
