// Files the bundle takes as bytes (build.mjs's loaders).
declare module "*.replay" {
  const bytes: Uint8Array;
  export default bytes;
}
