-- Every audit event (memlib/audit.py): writes, updates, deletes, promotions, flags,
-- confidence changes, retention runs, undos and purges; append-only, oldest first.
-- reads: nothing
create or replace view stg_audit_log as
with source as (
    select * from raw_audit_log
)
select
    event_id, subject_id, action, status, actor, "at", run_id, version,
    try_cast(details as json) as details
from source
