/** The organization of this install: first-run setup, what it is called, whether it takes open signups. */
import type { OrgActor, Principal } from "../../core/actor";
import { conflict, invalid, notFound } from "../../core/errors";
import { orgEvent } from "../../core/events";
import type { UnitOfWork } from "../../db/unit";
import { newId } from "../../lib/ids";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../../lib/password";
import { checkDisplayName, isEmail, nameFromEmail } from "../members/members.policy";
import type { MembersService, UserRow } from "../members/members.service";
import { presentOrganization } from "./organization.present";
import type { OrganizationStore, OrgRow } from "./organization.store";

export type { OrgRow } from "./organization.store";

/** What first-run setup needs. */
export interface SetupInput {
  orgName: string;
  adminEmail: string;
  adminPassword: string;
  adminName?: string | undefined;
}

/** A URL-safe slug of an organization name. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return slug || "org";
}

/** Validates first-run input before anything is written; returns the normalized name and email. */
export function checkSetupInput(input: SetupInput): { orgName: string; email: string } {
  const orgName = input.orgName.trim();
  const email = input.adminEmail.trim().toLowerCase();
  checkDisplayName("org_name", orgName);
  if (!isEmail(email)) throw invalid("admin_email: must be an email address");
  if (input.adminPassword.length < MIN_PASSWORD_LENGTH) {
    throw invalid(`admin_password: must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (input.adminName !== undefined) checkDisplayName("admin_name", input.adminName.trim());
  return { orgName, email };
}

export class OrganizationService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: OrganizationStore,
    private readonly members: MembersService,
  ) {}

  /** True until the organization of this install exists. */
  needsSetup(): boolean {
    return this.store.onlyOrg() === undefined;
  }

  /** The organization of this install, if set up. */
  current(): OrgRow | undefined {
    return this.store.onlyOrg();
  }

  /** Whether anyone may ask for an account (the sign-in page offers it only then). */
  signupsOpen(): boolean {
    return this.store.onlyOrg()?.openSignupsEnabled ?? false;
  }

  /** The organization of this install, or an error that says setup is needed. */
  requireOrg(): OrgRow {
    const org = this.store.onlyOrg();
    if (!org) throw conflict("no organization yet: run `tandem setup` first");
    return org;
  }

  /** An organization by id. */
  byId(id: string): OrgRow | undefined {
    return this.store.org(id);
  }

  /** Creates the organization, its four system roles and its owner, in one transaction. */
  async setup(input: SetupInput): Promise<{ org: OrgRow; user: UserRow }> {
    const { orgName, email } = checkSetupInput(input);
    const passwordHash = await hashPassword(input.adminPassword);
    const now = Date.now();
    return this.uow.write(() => {
      if (this.store.onlyOrg()) throw conflict("organization already exists");
      if (this.members.userByEmail(email)) throw conflict("email already registered");
      const org: OrgRow = {
        id: newId(),
        name: orgName,
        slug: slugify(orgName),
        openSignupsEnabled: false,
        createdAt: now,
        updatedAt: now,
      };
      this.store.insertOrg(org);
      const roleIds = this.members.createSystemRoles(org.id, now);
      const displayName = input.adminName?.trim() || nameFromEmail(email);
      const user = this.members.createUser({ email, displayName, passwordHash }, now);
      this.members.addMember(org.id, user.id, [roleIds.get("owner") as string], now);
      return { org, user };
    });
  }

  organizationsOf(principal: Principal): OrgRow[] {
    return this.store.orgsOfUser(principal.userId);
  }

  organization(actor: OrgActor): OrgRow {
    const org = this.store.org(actor.orgId);
    if (!org) throw notFound("organization not found");
    return org;
  }

  patchOrganization(
    actor: OrgActor,
    patch: { name?: string | undefined; open_signups_enabled?: boolean | undefined },
  ): OrgRow {
    const changes: Partial<Pick<OrgRow, "name" | "openSignupsEnabled">> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.open_signups_enabled !== undefined) changes.openSignupsEnabled = patch.open_signups_enabled;
    if (Object.keys(changes).length === 0) return this.organization(actor);
    return this.uow.write((unit) => {
      const previous = this.organization(actor);
      this.store.updateOrg(actor.orgId, changes, Date.now());
      const organization = this.organization(actor);
      const payload = { organization: presentOrganization(organization), previous: presentOrganization(previous) };
      unit.emit(orgEvent(actor.orgId, "organization.updated", payload, actor));
      return organization;
    });
  }
}
