// Records an uploaded file's metadata if its owner's quota has room; its bytes go to the blob store
// at `sha256` after this. The owner's FileQuota node is written first, which takes its write lock:
// one owner's uploads are counted and recorded one at a time, on every instance, so uploads sent in
// parallel cannot together pass the quota. The count is of the owner's File nodes, so whatever
// removes a file (erase, memory delete, the orphan sweep) gives its share back by itself.
// A new file is :Unnamed until a record names it (file_name); the sweeper reclaims it past a grace.
// Parameters: $id, $owner (principal), $name, $media_type, $bytes (int), $sha256, $purpose, $now,
//   $max_files (int), $max_bytes (int). Columns: fits (bool), files, used (the owner's files and
//   bytes before this one), id, name, media_type, bytes, created_at, purpose (null when it did not fit).
MERGE (q:FileQuota {owner: $owner})
SET q.checked_at = $now
WITH q
OPTIONAL MATCH (f:File {owner: $owner})
WITH count(f) AS files, coalesce(sum(f.bytes), 0) AS used
WITH files, used, files < $max_files AND used + $bytes <= $max_bytes AS fits
FOREACH (_ IN CASE WHEN fits THEN [1] ELSE [] END |
  CREATE (:File:Unnamed {id: $id, owner: $owner, name: $name, media_type: $media_type, bytes: $bytes,
                         sha256: $sha256, purpose: $purpose, created_at: $now}))
WITH fits, files, used
OPTIONAL MATCH (f:File {id: $id}) WHERE fits
RETURN fits, files, used, f.id AS id, f.name AS name, f.media_type AS media_type, f.bytes AS bytes,
       f.created_at AS created_at, f.purpose AS purpose
