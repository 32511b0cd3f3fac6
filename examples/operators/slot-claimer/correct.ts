/** The slot claimer that frees the slot of every Claim gone from a live list. */
import { main } from './claimer.js';

main({ onDeleteEventOnly: false });
