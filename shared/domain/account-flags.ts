/** Account flags an Admin sets with PATCH /users/{userid} `flags` that grant a power beyond the role. */

/** The account flag that lets a user who is not an Admin manage external training modules. */
export const MANAGE_MODULES_FLAG = 'manage_external_training_modules';
