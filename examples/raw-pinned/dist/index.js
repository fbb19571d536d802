export default {
  async fetch() {
    return new Response("pinned revision 1\n");
  },
};
