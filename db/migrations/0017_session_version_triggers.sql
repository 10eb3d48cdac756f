-- Hosted-app sessions are JWTs that live for a week; they carry users.session_version and end
-- once it moves on. The bumps live here, beside the data, so every service that blocks a user,
-- takes a role away or enforces SSO revokes sessions without knowing about them.

-- Organization roles ranked by what they allow: a move down is a loss.
CREATE OR REPLACE FUNCTION steward_org_role_rank(role text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE role WHEN 'admin' THEN 2 WHEN 'member' THEN 1 ELSE 0 END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION steward_team_role_rank(role text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE role WHEN 'owner' THEN 2 WHEN 'admin' THEN 1 ELSE 0 END
$$;
--> statement-breakpoint
-- Blocked (active -> inactive/suspended), taken out of or moved from an organization, or given a lower organization role.
CREATE OR REPLACE FUNCTION steward_users_session_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF (OLD.status = 'active' AND NEW.status <> 'active')
     OR (OLD.organization_id IS NOT NULL AND NEW.organization_id IS DISTINCT FROM OLD.organization_id)
     OR steward_org_role_rank(NEW.organization_role) < steward_org_role_rank(OLD.organization_role) THEN
    NEW.session_version := OLD.session_version + 1;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER users_session_version
  BEFORE UPDATE OF status, organization_id, organization_role ON users
  FOR EACH ROW EXECUTE FUNCTION steward_users_session_version();
--> statement-breakpoint
-- Removed from a team (deprovisioning, member removal), a lower team role, or an admin who stops
-- being an active member. A member archived because they moved to another team keeps the session:
-- moving is not losing a privilege, and the new team's rules apply on the next request anyway.
CREATE OR REPLACE FUNCTION steward_team_memberships_session_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.status = 'active' THEN
      UPDATE users SET session_version = session_version + 1 WHERE id = OLD.user_id;
    END IF;
    RETURN OLD;
  END IF;
  IF OLD.status = 'active'
     AND (steward_team_role_rank(NEW.role) < steward_team_role_rank(OLD.role)
          OR (OLD.role = 'admin' AND NEW.status <> 'active')
          OR NEW.team_id IS DISTINCT FROM OLD.team_id) THEN
    UPDATE users SET session_version = session_version + 1 WHERE id = OLD.user_id;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER team_memberships_session_version
  AFTER UPDATE OF role, status, team_id OR DELETE ON team_memberships
  FOR EACH ROW EXECUTE FUNCTION steward_team_memberships_session_version();
--> statement-breakpoint
-- Enforcing SSO ends every session of the organization's members: email-link sessions may no
-- longer exist, and everyone signs in again through the IdP.
CREATE OR REPLACE FUNCTION steward_organizations_session_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(NEW.sso -> 'enforced' = 'true'::jsonb, false) AND NOT coalesce(OLD.sso -> 'enforced' = 'true'::jsonb, false) THEN
    UPDATE users SET session_version = session_version + 1 WHERE organization_id = NEW.id;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER organizations_session_version
  AFTER UPDATE OF sso ON organizations
  FOR EACH ROW EXECUTE FUNCTION steward_organizations_session_version();
