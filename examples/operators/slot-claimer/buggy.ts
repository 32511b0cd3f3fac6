/** The slot claimer that frees a slot only when it hears its Claim's delete event (a deletion while it was down leaks the slot). */
import { main } from './claimer.js';

main({ onDeleteEventOnly: true });
